"""Creating a match with saved decks: the versions brought are frozen for it in its transaction, and
a refusal anywhere writes neither a match nor a freeze."""

from __future__ import annotations

import pytest

from core.errors import ApplicationError
from decks.services import deck_create
from engines.ragnguns import load_prebuilt
from flows.match_with_decks import match_create_with_decks
from matches.models import Match

pytestmark = pytest.mark.django_db


def saved(user):
    prebuilt = load_prebuilt()[0]
    return deck_create(owner=user, name="Mine", gunslinger=prebuilt.gunslinger, cards=list(prebuilt.cards))


def test_the_deck_a_seat_brings_is_frozen_for_the_match_it_plays_in(users):
    version = saved(users["alice"])
    match = match_create_with_decks(
        game_key="ragnguns",
        options={},
        seats=[{"user": "alice", "deck": version.deck.share_id}, {"bot": "heuristic"}],
        created_by=users["alice"],
    )
    version.refresh_from_db()
    assert version.is_frozen and version.frozen_for.splitlines() == [f"match {match.pk}"]
    assert match.seats.get(index=0).user == users["alice"]


@pytest.mark.parametrize(
    ("options", "seats", "code"),
    [
        # The deck is checked and legal; the game refuses the options only as the match is made.
        ({"turn_limit": "many"}, [{"user": "alice"}, {"bot": "heuristic"}], "options/wrong_type"),
        ({}, [{"user": "alice"}, {"bot": "no-such-bot"}], "seat/unknown_bot"),
        ({}, [{"user": "alice"}, {"bot": "heuristic", "deck": "x"}], "seat/deck_not_needed"),
        ({}, [{"user": "alice"}, {"user": "bob"}], "seat/consent_needed"),
    ],
)
def test_a_refused_match_freezes_nothing_and_writes_no_match(users, options, seats, code):
    version = saved(users["alice"])
    seats[0]["deck"] = version.deck.share_id
    with pytest.raises(ApplicationError) as refused:
        match_create_with_decks(game_key="ragnguns", options=options, seats=seats, created_by=users["alice"])
    assert refused.value.code == code
    version.refresh_from_db()
    assert not version.is_frozen and not Match.objects.exists()
