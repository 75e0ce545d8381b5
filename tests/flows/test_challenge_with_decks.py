"""Challenges with saved decks: each seat's deck is checked as it is taken, and every version brought
is frozen once the last acceptance has created the match, not before."""

from __future__ import annotations

import pytest

from core.errors import ApplicationError
from decks.services import deck_create
from engines.ragnguns import load_prebuilt
from flows.challenge_with_decks import challenge_accept_with_deck, challenge_create_with_decks

pytestmark = pytest.mark.django_db


def saved(user):
    prebuilt = load_prebuilt()[0]
    return deck_create(owner=user, name="Mine", gunslinger=prebuilt.gunslinger, cards=list(prebuilt.cards))


def test_the_decks_are_frozen_when_the_last_acceptance_creates_the_match(users):
    alices, bobs = saved(users["alice"]), saved(users["bob"])
    challenge = challenge_create_with_decks(
        created_by=users["alice"],
        game_key="ragnguns",
        options={},
        seats=[{"user": "alice", "deck": alices.deck.share_id}, {"user": "bob"}],
    )
    alices.refresh_from_db()
    assert challenge.match_id is None and not alices.is_frozen
    with pytest.raises(ApplicationError) as refused:
        challenge_accept_with_deck(
            challenge_id=challenge.pk, user=users["bob"], seat={"deck": alices.deck.share_id}
        )
    assert refused.value.code == "deck/not_yours"
    challenge = challenge_accept_with_deck(
        challenge_id=challenge.pk, user=users["bob"], seat={"deck": bobs.deck.share_id, "deck_version": 1}
    )
    assert challenge.match_id is not None
    for version in (alices, bobs):
        version.refresh_from_db()
        assert version.frozen_for.splitlines() == [f"match {challenge.match_id}"]


def test_a_challenge_refused_after_its_deck_was_checked_writes_nothing(users):
    alices = saved(users["alice"])
    with pytest.raises(ApplicationError) as refused:
        challenge_create_with_decks(
            created_by=users["alice"],
            game_key="ragnguns",
            options={},
            seats=[{"user": "alice", "deck": alices.deck.share_id}, {"bot": "no-such-bot"}],
        )
    assert refused.value.code == "seat/unknown_bot"
    alices.refresh_from_db()
    assert not alices.is_frozen and not users["alice"].challenges_made.exists()
