"""Importing a tournament another instance exported (`tournaments.exports.tournament_export`)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from core.errors import Rejected
from tournaments.formats import lifecycle
from tournaments.formats.common import FormatError
from tournaments.models import (
    Tournament,
    TournamentEntry,
    TournamentEvent,
    TournamentStanding,
    TournamentTable,
)
from tournaments.selectors import SERVICE_KINDS, tournament_projection
from tournaments.services.change import standing_unranked
from tournaments.services.setup import tournament_create

IMPORT_EVENTS_MAX = 200_000


@transaction.atomic
def tournament_import(*, user, data: dict[str, Any]) -> Tournament:
    """A tournament exported by another instance (`exports.tournament_export`), replayed here: its
    set-up, its players under their names there (not bound to anyone's account here), and its log,
    which must replay without a refusal. The links to Snakepit matches stay behind (the games they
    recorded are in the log), so the copy takes further results at tables. The importer organises it."""
    if not isinstance(data, dict) or data.get("format") != "snakepit-tournament" or data.get("version") != 1:
        raise Rejected(
            "not a Snakepit tournament export (format snakepit-tournament, version 1)",
            code="import/bad_format",
        )
    setup, players, events = data.get("tournament"), data.get("players"), data.get("events")
    if not isinstance(setup, dict) or not isinstance(players, dict) or not isinstance(events, list):
        raise Rejected("an export has tournament, players and events", code="import/bad_format")
    if len(events) > IMPORT_EVENTS_MAX or len(players) > 100_000:
        raise Rejected(f"at most {IMPORT_EVENTS_MAX} events", code="import/too_large")
    if any(
        not isinstance(e, dict)
        or not isinstance(e.get("kind"), str)
        or not isinstance(e.get("payload"), dict)
        for e in events
    ):
        raise Rejected("each event has a kind and a payload object", code="import/bad_format")
    expected = {"name": str, "game": str, "format": str, "options": dict, "config": dict, "seeding": str}
    wrong = sorted(key for key, kind in expected.items() if key in setup and not isinstance(setup[key], kind))
    seats = setup.get("seats_per_match")
    if wrong or (seats is not None and (isinstance(seats, bool) or not isinstance(seats, int))):
        raise Rejected(
            f"the set-up's {', '.join(wrong) or 'seats_per_match'} has the wrong type",
            code="import/bad_format",
        )
    if setup.get("seeding", Tournament.Seeding.MANUAL) not in Tournament.Seeding.values:
        raise Rejected("unknown seeding", code="import/bad_format")
    tournament = tournament_create(
        organiser=user,
        name=str(setup.get("name") or "Imported tournament")[:120],
        game_key=str(setup.get("game")),
        format=str(setup.get("format")),
        options=setup.get("options") or {},
        config=setup.get("config") or {},
        seats_per_match=setup.get("seats_per_match"),
        result_mode=Tournament.ResultMode.TABLE,
        seeding=setup.get("seeding", Tournament.Seeding.MANUAL),
    )
    kept = [e for e in events if e["kind"] != "match_created"]
    try:
        state = lifecycle.replay(
            lifecycle.TournamentSpec(
                format=tournament.format, seats_per_match=tournament.seats_per_match, config=tournament.config
            ),
            [e["payload"] for e in kept if e["kind"] not in SERVICE_KINDS],
        )
    except FormatError as error:
        raise Rejected(
            f"the log does not replay: {error.code}: {error.detail}", code="import/bad_log"
        ) from None
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as error:
        # A payload of the right kind with fields of the wrong shape, which only a forged file has.
        raise Rejected(
            f"the log does not replay: a malformed payload ({type(error).__name__})", code="import/bad_log"
        ) from None
    if any(e["payload"].get("kind") != e["kind"] for e in kept):
        raise Rejected("an event's kind differs from its payload's", code="import/bad_log")
    registered = {e["payload"]["player"] for e in kept if e["kind"] == "registered"}
    TournamentEvent.objects.bulk_create(
        TournamentEvent(tournament=tournament, seq=seq, kind=e["kind"], payload=e["payload"])
        for seq, e in enumerate(kept, start=1)
    )
    TournamentEntry.objects.bulk_create(
        TournamentEntry(tournament=tournament, player=p, name=str(players.get(p, p))[:150])
        for p in sorted(registered)
    )
    kinds = {e["kind"] for e in kept}
    if "cancelled" in kinds:
        tournament.status = Tournament.Status.CANCELLED
    elif state.status == "finished":
        tournament.status = Tournament.Status.FINISHED
    elif state.status == "running":
        tournament.status = Tournament.Status.RUNNING
    elif "registration_opened" in kinds:
        tournament.status = Tournament.Status.REGISTRATION
    tournament.seed_commitment = str(setup.get("seed_commitment") or "")[:64]
    tournament.save(update_fields=["status", "seed_commitment"])
    projection = tournament_projection(tournament)
    for player, status in projection["entries"].items():
        tournament.entries.filter(player=player).update(status=status)
    TournamentTable.objects.bulk_create(
        TournamentTable(tournament=tournament, **row) for row in projection["tables"]
    )
    TournamentStanding.objects.bulk_create(
        TournamentStanding(
            tournament=tournament, player=row["player"], rank=row["rank"], row=standing_unranked(row)
        )
        for row in projection["standings"]
    )
    return tournament
