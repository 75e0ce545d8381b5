"""Reads of tournaments: the reducer's state folded from the log, and the projection the log implies
(which `manage.py rebuild_tournaments` compares with the stored tables). Nothing here writes."""

from __future__ import annotations

import json
from typing import Any, Iterable

from core.errors import ApplicationError, NotFound
from matches.models import Match
from tournaments.formats import lifecycle
from tournaments.formats.common import FormatError
from tournaments.models import Tournament, TournamentEntry, TournamentEvent

# Facts of the service's own, kept in the same log but not part of the reducer's vocabulary.
SERVICE_KINDS = frozenset({"registration_opened", "match_created"})

def tournament_spec(tournament: Tournament) -> lifecycle.TournamentSpec:
    return lifecycle.TournamentSpec(
        format=tournament.format, seats_per_match=tournament.seats_per_match, config=tournament.config
    )


def tournament_log(tournament: Tournament) -> list[TournamentEvent]:
    return list(tournament.events.order_by("seq"))


def tournament_state(tournament: Tournament, events: Iterable[TournamentEvent] | None = None):
    """The reducer's state: a fold of the log's reducer events (the service's own kinds left out)."""
    events = tournament_log(tournament) if events is None else events
    try:
        return lifecycle.replay(
            tournament_spec(tournament), [event.payload for event in events if event.kind not in SERVICE_KINDS]
        )
    except FormatError as error:
        raise ApplicationError(
            f"tournament {tournament.slug} does not replay: {error.code}: {error.detail}",
            code="tournament/corrupt_log",
            status=500,
        ) from None


def tournament_get(*, slug: str, for_update: bool = False) -> Tournament:
    queryset = Tournament.objects.select_for_update() if for_update else Tournament.objects.all()
    try:
        return queryset.get(slug=slug)
    except Tournament.DoesNotExist:
        raise NotFound(f"no tournament {slug!r}", code="tournament/not_found") from None


def tournament_projection(tournament: Tournament, events: list[TournamentEvent] | None = None) -> dict[str, Any]:
    """Everything the projection tables should hold, computed from the log alone."""
    events = tournament_log(tournament) if events is None else events
    state = tournament_state(tournament, events)
    statuses: dict[str, str] = {}
    match_keys: list[str] = []
    matches = []
    for event in events:
        payload = event.payload
        if event.kind == "registered":
            statuses[payload["player"]] = TournamentEntry.Status.REGISTERED
        elif event.kind == "checked_in":
            statuses[payload["player"]] = TournamentEntry.Status.CHECKED_IN
        elif event.kind == "dropped":
            statuses[payload["player"]] = TournamentEntry.Status.DROPPED
        elif event.kind == "round_paired":
            match_keys.extend(table["match_key"] for table in payload["tables"])
        elif event.kind == "match_created":
            matches.append((payload["match_key"], payload["game"], payload["match_id"]))
    tables = []
    for key in match_keys:
        table = lifecycle.table(state, key)
        tables.append(
            {
                "match_key": key,
                "round": table["round"],
                "stage": table.get("stage", "main"),
                "players": list(table["players"]),
                "best_of": table.get("best_of", 1),
                "status": table["status"],
                "result": table.get("result"),
            }
        )
    standings = lifecycle.standings(state) if any(e.kind == "started" for e in events) else []
    standings = sorted(standings, key=lambda row: (row["rank"], row["player"]))
    # Through JSON once, so it compares equal to what the JSON columns give back.
    return json.loads(json.dumps({"entries": statuses, "tables": tables, "matches": sorted(matches), "standings": standings}))


def tournament_projection_stored(tournament: Tournament) -> dict[str, Any]:
    """What the projection tables hold now, in the shape of `tournament_projection`."""
    return {
        "entries": {entry.player: entry.status for entry in tournament.entries.all()},
        "tables": [
            {
                "match_key": row.match_key, "round": row.round, "stage": row.stage, "players": row.players,
                "best_of": row.best_of, "status": row.status, "result": row.result,
            }
            for row in tournament.tables.order_by("pk")
        ],
        "matches": [list(row) for row in sorted(tournament.matches.values_list("match_key", "game_number", "match_id"))],
        "standings": [
            {**row.row, "rank": row.rank, "player": row.player} for row in tournament.standings.order_by("rank", "player")
        ],
    }




def tournament_unrecorded_matches(tournament: Tournament) -> list[int]:
    """Finished Snakepit matches of the tournament whose game the log does not hold (a lost task)."""
    recorded = {
        event.payload.get("match_id") for event in tournament.events.filter(kind="game_recorded")
    }
    finished = tournament.matches.filter(match__status=Match.Status.FINISHED).values_list("match_id", flat=True)
    return sorted(match_id for match_id in finished if match_id not in recorded)
