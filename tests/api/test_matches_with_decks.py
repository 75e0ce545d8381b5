"""Rag'n'Guns matches through the API with saved decks: legal, the seat user's own, frozen for the
match, and private to their seat while the match runs."""

from __future__ import annotations

import pytest

from decks.models import DeckVersion
from decks.services import deck_create
from engines.ragnguns import load_prebuilt
from matches.models import Match

pytestmark = pytest.mark.django_db


def saved(user, *, legal=True):
    prebuilt = load_prebuilt()[0]
    cards = list(prebuilt.cards) if legal else list(prebuilt.cards)[:-1]
    return deck_create(owner=user, name="Mine", gunslinger=prebuilt.gunslinger, cards=cards)


def create(client, seat):
    return client.post(
        "/api/matches/", {"game": "ragnguns", "seats": [seat, {"bot": "heuristic"}]}, format="json"
    )


def test_a_legal_saved_deck_is_brought_frozen_and_private_until_the_end(users, client_for):
    alice = client_for(users["alice"])
    version = saved(users["alice"])
    response = create(alice, {"user": "alice", "deck": version.deck.share_id, "deck_version": 1})
    assert response.status_code == 201, response.json()
    match_id = response.json()["id"]
    version.refresh_from_db()
    assert version.is_frozen and f"match {match_id}" in version.frozen_for
    mine = next(event for event in alice.get(f"/api/matches/{match_id}/events/").json() if event["seat"] == 0)
    assert mine["payload"]["type"] == "bring_deck" and sorted(mine["payload"]["cards"]) == sorted(
        version.cards
    )
    theirs = next(
        event for event in client_for().get(f"/api/matches/{match_id}/events/").json() if event["seat"] == 0
    )
    assert theirs["redacted"] and theirs["payload"] is None


def test_an_illegal_a_missing_or_someone_elses_deck_is_refused_and_nothing_is_written(users, client_for):
    alice = client_for(users["alice"])
    illegal = saved(users["alice"], legal=False)
    refused = create(alice, {"user": "alice", "deck": illegal.deck.share_id})
    assert (refused.status_code, refused.json()["code"]) == (422, "deck/illegal")
    assert refused.json()["violations"] and all(
        "code" in violation for violation in refused.json()["violations"]
    )
    missing = create(alice, {"user": "alice"})
    assert (missing.status_code, missing.json()["code"]) == (422, "seat/deck_required")
    bobs = saved(users["bob"])
    stolen = create(alice, {"user": "alice", "deck": bobs.deck.share_id})
    assert (stolen.status_code, stolen.json()["code"]) == (403, "deck/not_yours")
    bot_with_deck = alice.post(
        "/api/matches/",
        {
            "game": "ragnguns",
            "seats": [{"user": "alice", "deck": bobs.deck.share_id}, {"bot": "random", "deck": "x"}],
        },
        format="json",
    )
    assert 400 <= bot_with_deck.status_code < 500
    assert Match.objects.count() == 0
    assert not DeckVersion.objects.filter(frozen_at__isnull=False).exists()
