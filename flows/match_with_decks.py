"""Creating a match whose seats bring saved decks: the matches and decks apps, which do not import
each other, meet here. The API's `POST /api/matches/` and the play page both start matches here."""

from __future__ import annotations

from dataclasses import replace

from django.db import transaction

from core.errors import Forbidden, Rejected
from decks.models import DeckVersion
from decks.selectors import deck_version_brought, deck_version_for_entry
from decks.services import deck_version_freeze
from matches.models import Match
from matches.services import match_create, seat_specs_from_request


@transaction.atomic
def match_create_with_decks(
    *, game_key: str, options: dict, seats: list[dict], created_by, entropy: str = "auto"
) -> Match:
    """A match whose seats may bring saved decks: each deck must be its seat user's and legal in the
    match's format; the chosen versions are frozen for the match in the same transaction, so a refused
    match freezes nothing. Only the creator and bots sit here: other people are seated through a
    challenge they accept (flows.challenge_with_decks), and the refusal is the same whether or not a
    name exists."""
    for index, seat in enumerate(seats):
        if "user" in seat and seat["user"] != created_by.get_username():
            raise Forbidden(
                f"seat {index}: other people take a seat by accepting a challenge (POST /api/challenges/)",
                code="seat/consent_needed",
            )
    specs = seat_specs_from_request(
        {key: seat[key] for key in ("user", "bot") if key in seat} for seat in seats
    )
    versions = {}
    for index, (seat, spec) in enumerate(zip(seats, specs)):
        if "deck" not in seat:
            continue
        if spec.user is None:
            raise Rejected(f"seat {index}: a bot brings its own deck", code="seat/deck_not_needed")
        versions[index] = seat_deck_version(seat, spec.user, options)
        specs[index] = replace(spec, deck=deck_version_brought(versions[index]))
    match = match_create(
        game_key=game_key, options=options, seats=specs, created_by=created_by, entropy=entropy
    )
    for version in versions.values():
        deck_version_freeze(deck_version=version, purpose=f"match {match.pk}")
    return match


def seat_deck_version(seat: dict, user, options: dict | None) -> DeckVersion:
    """The saved deck version a seat request names (`deck`, `deck_version`), checked to be `user`'s
    and legal in the match's format."""
    return deck_version_for_entry(
        share_id=seat["deck"],
        version=seat.get("deck_version"),
        user=user,
        format_key=(options or {}).get("format"),
    )
