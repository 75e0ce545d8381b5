"""Challenges whose seats bring saved decks: a seat's deck is checked (its holder's, legal in the
match's format) as the seat is taken, and the versions are frozen once the last acceptance has
created the match, all in the transaction of the challenge or acceptance that did it. The matches
and decks apps meet here; the API's challenge routes call these."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from decks.selectors import deck_get_by_share_id, deck_version_brought, deck_version_get
from decks.services import deck_version_freeze
from flows.match_with_decks import seat_deck_version
from matches.challenges import challenge_accept, challenge_create, challenge_get_for
from matches.models import Challenge


@transaction.atomic
def challenge_create_with_decks(
    *, created_by, game_key: str, options: dict[str, Any], seats: list[dict[str, Any]]
) -> Challenge:
    """A challenge for `seats` (in seat order: `{"user"}` or `{"bot"}`, the challenger's own seats
    with `deck` and `deck_version` where the game needs one)."""
    own_decks = {}
    for index, seat in enumerate(seats):
        if seat.get("user") == created_by.get_username():
            deck = _deck_brought(seat, created_by, options)
            if deck is not None:
                own_decks[index] = deck
    challenge = challenge_create(
        created_by=created_by,
        game_key=game_key,
        options=options,
        seats=[{key: seat[key] for key in ("user", "bot") if key in seat} for seat in seats],
        decks=own_decks,
    )
    _decks_freeze(challenge)
    return challenge


@transaction.atomic
def challenge_accept_with_deck(*, challenge_id: int, user, seat: dict[str, Any]) -> Challenge:
    """`user` takes their seat, with the saved deck `seat` names (`deck`, `deck_version`) where the
    game needs one; the last acceptance starts the match."""
    challenge = challenge_get_for(challenge_id=challenge_id, user=user)
    deck = _deck_brought(seat, user, challenge.options)
    challenge = challenge_accept(
        challenge_id=challenge.pk,
        user=user,
        deck=deck[0] if deck else None,
        deck_ref=deck[1] if deck else None,
    )
    _decks_freeze(challenge)
    return challenge


def _deck_brought(seat: dict[str, Any], user, options: dict[str, Any]) -> tuple[dict, dict] | None:
    """What a seat brings (the match's deck fields) and which version it is, or None without a deck."""
    if "deck" not in seat:
        return None
    version = seat_deck_version(seat, user, options)
    return deck_version_brought(version), {"share_id": version.deck.share_id, "version": version.number}


def _decks_freeze(challenge: Challenge) -> None:
    """Once the match exists, the deck versions its seats brought can never be deleted."""
    if challenge.match_id is None:
        return
    for seat in challenge.seats.exclude(deck_ref=None):
        deck = deck_get_by_share_id(share_id=seat.deck_ref["share_id"])
        version = deck_version_get(deck=deck, number=seat.deck_ref["version"])
        deck_version_freeze(deck_version=version, purpose=f"match {challenge.match_id}")
