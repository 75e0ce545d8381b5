"""Reads of tournaments: the reducer's current state (cached, or rebuilt from the latest snapshot and
the events after it), the full replay of the log, and the projection the log implies (which
`manage.py rebuild_tournaments` compares with the stored tables). Nothing here writes, except the
in-process cache of current states."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Count, Max, QuerySet, Sum
from django.db.models.functions import Coalesce

from core.errors import ApplicationError, NotFound
from matches.models import Match
from tournaments.formats import lifecycle
from tournaments.formats.common import FormatError
from tournaments.formats.lifecycle_state import Table
from tournaments.models import Tournament, TournamentEntry, TournamentEvent

# Facts of the service's own, kept in the same log but not part of the reducer's vocabulary.
SERVICE_KINDS = frozenset(
    {"registration_opened", "match_created", "seeds_set", "round_closed", "round_started", "cancelled"}
)

# The entry status each reducer event leaves its player in.
ENTRY_STATUS = {
    "registered": TournamentEntry.Status.REGISTERED,
    "checked_in": TournamentEntry.Status.CHECKED_IN,
    "dropped": TournamentEntry.Status.DROPPED,
}


def tournament_spec(tournament: Tournament) -> lifecycle.TournamentSpec:
    return lifecycle.TournamentSpec(
        format=tournament.format, seats_per_match=tournament.seats_per_match, config=tournament.config
    )


def tournament_log(tournament: Tournament) -> list[TournamentEvent]:
    return list(tournament.events.order_by("seq"))


def _corrupt(tournament: Tournament, error: FormatError, seq: int | None = None) -> ApplicationError:
    where = "" if seq is None else f"event {seq}: "
    return ApplicationError(
        f"tournament {tournament.slug} does not replay: {where}{error.code}: {error.detail}",
        code="tournament/corrupt_log",
        status=500,
    )


def tournament_state(tournament: Tournament, events: Iterable[TournamentEvent] | None = None):
    """The reducer's state by a full replay of the log (the service's own kinds left out): the
    truth the rebuild compares with. Reads of the current state use `tournament_head`."""
    events = tournament_log(tournament) if events is None else events
    try:
        return lifecycle.replay(
            tournament_spec(tournament),
            [event.payload for event in events if event.kind not in SERVICE_KINDS],
        )
    except FormatError as error:
        raise _corrupt(tournament, error) from None


def tournament_get(*, slug: str, for_update: bool = False) -> Tournament:
    queryset = Tournament.objects.select_for_update() if for_update else Tournament.objects.all()
    try:
        return queryset.get(slug=slug)
    except Tournament.DoesNotExist:
        raise NotFound(f"no tournament {slug!r}", code="tournament/not_found") from None


def tournament_entrant_user_ids(*, tournament: Tournament) -> list[int]:
    """The accounts of the people registered (not the bots), dropped or not."""
    return list(tournament.entries.filter(user__isnull=False).values_list("user_id", flat=True))


# --- the current state, without replaying -------------------------------------------------------


@dataclass(frozen=True)
class TournamentHead:
    """The reducer's state after the log's event `seq` (0: none yet), and, when known, the standings
    rows stored for it ({player: row}, in the projection's JSON form)."""

    state: lifecycle.TournamentState
    seq: int
    standings: dict[str, dict] | None = None


#: Current states kept in this process, one per tournament, the most recently used last. An entry
#: is the current state only at the sequence number it was made at, and is put there only once the
#: events it reflects are committed: an entry older than the log is never taken for the current
#: state (at most as a start to apply the later events to), and a rolled-back action leaves none.
_HEADS: OrderedDict[tuple, TournamentHead] = OrderedDict()
_HEADS_LOCK = threading.Lock()
HEADS_KEPT = 32


def _head_key(tournament: Tournament) -> tuple:
    # The creation time as well as the primary key: a database may reuse a key after a rollback
    # (SQLite), and this process may outlive a test database.
    return (tournament.pk, tournament.created_at.isoformat() if tournament.created_at else "new")


def tournaments_listed() -> QuerySet[Tournament]:
    """Tournaments for a listing, each with its organiser and `head_seq` (its log's last seq, 0 for
    none) read in the same query, so that listing them costs no query per tournament."""
    return Tournament.objects.select_related("organiser").annotate(head_seq=Coalesce(Max("events__seq"), 0))


def tournaments_version() -> tuple[int, int, int]:
    """A value that differs after any tournament is created, deleted or saved, in one query: a new
    one raises the highest id (ids are never reused), a deleted one lowers the count, and a save
    raises the sum of the revisions (`Tournament.revision`, which only ever grows)."""
    version = Tournament.objects.aggregate(count=Count("pk"), last=Max("pk"), revisions=Sum("revision"))
    return version["count"], version["last"] or 0, version["revisions"] or 0


def tournament_head_seq(tournament: Tournament) -> int:
    return tournament.events.order_by("-seq").values_list("seq", flat=True).first() or 0


def tournament_head(tournament: Tournament, *, seq: int | None = None) -> TournamentHead:
    """The current state: this process's cached one when it is at the log's last event; else the
    latest state known at or before that event (the cached one, or the latest snapshot, whichever
    is later) with the events after it applied. `seq` is the last event's number when the caller
    knows it (it holds the tournament's lock)."""
    seq = tournament_head_seq(tournament) if seq is None else seq
    key = _head_key(tournament)
    with _HEADS_LOCK:
        cached = _HEADS.get(key)
        if cached is not None and cached.seq == seq:
            _HEADS.move_to_end(key)
            return cached
    # An older cached state is as good a start as a snapshot: committed events never change.
    base = cached if cached is not None and cached.seq < seq else None
    head = _head_rebuilt(tournament, seq, base)
    if seq:
        tournament_head_remember(tournament, head)
    return head


def _head_rebuilt(tournament: Tournament, seq: int, base: TournamentHead | None) -> TournamentHead:
    state, start = (
        (lifecycle.new_state(tournament_spec(tournament)), 0) if base is None else (base.state, base.seq)
    )
    if seq:
        snapshot = (
            tournament.snapshots.filter(seq__gt=start, seq__lte=seq, version=lifecycle.STATE_JSON_VERSION)
            .order_by("-seq")
            .first()
        )
        if snapshot is not None:
            state, start = lifecycle.state_from_json(snapshot.state), snapshot.seq
    events = (
        tournament.events.filter(seq__gt=start, seq__lte=seq).exclude(kind__in=SERVICE_KINDS).order_by("seq")
    )
    for event in events:
        try:
            state = lifecycle.apply(state, event.payload)
        except FormatError as error:
            raise _corrupt(tournament, error, event.seq) from None
    return TournamentHead(state, seq)


def tournament_head_remember(tournament: Tournament, head: TournamentHead) -> None:
    """Cache `head` once the events it reflects are committed (at once outside a transaction)."""
    key = _head_key(tournament)

    def remember() -> None:
        with _HEADS_LOCK:
            current = _HEADS.get(key)
            if current is not None and current.seq > head.seq:
                return  # a later state is already here
            _HEADS[key] = head
            _HEADS.move_to_end(key)
            while len(_HEADS) > HEADS_KEPT:
                _HEADS.popitem(last=False)

    transaction.on_commit(remember)


def tournament_heads_forget() -> None:
    """Empty this process's cache (as a fresh process starts)."""
    with _HEADS_LOCK:
        _HEADS.clear()


# --- projections ----------------------------------------------------------------------------------


def table_row(t: Table) -> dict[str, Any]:
    """A table's projection row, in its JSON form."""
    return {
        "match_key": t.match_key,
        "round": t.round,
        "stage": t.stage,
        "players": list(t.players),
        "best_of": t.best_of,
        "status": t.status,
        "result": lifecycle.table_result(t),
    }


def standing_rows(state: lifecycle.TournamentState) -> list[dict[str, Any]]:
    """The standings rows, ranked, in their JSON form (through JSON once, so that they compare equal
    to what the JSON columns give back)."""
    rows = sorted(lifecycle.standings(state), key=lambda row: (row["rank"], row["player"]))
    return json.loads(json.dumps(rows))


def tournament_projection(
    tournament: Tournament, events: list[TournamentEvent] | None = None
) -> dict[str, Any]:
    """Everything the projection tables should hold, computed from the whole log alone."""
    events = tournament_log(tournament) if events is None else events
    state = tournament_state(tournament, events)
    statuses: dict[str, str] = {}
    matches = []
    for event in events:
        payload = event.payload
        if event.kind in ENTRY_STATUS:
            statuses[payload["player"]] = ENTRY_STATUS[event.kind]
        elif event.kind == "match_created":
            matches.append((payload["match_key"], payload["game"], payload["match_id"]))
    # Tables in the order their rounds paired them: the state's own order.
    tables = [table_row(t) for t in state.tables]
    return json.loads(
        json.dumps(
            {
                "entries": statuses,
                "tables": tables,
                "matches": sorted(matches),
                "standings": standing_rows(state),
            }
        )
    )


def tournament_projection_stored(tournament: Tournament) -> dict[str, Any]:
    """What the projection tables hold now, in the shape of `tournament_projection`."""
    return {
        "entries": {entry.player: entry.status for entry in tournament.entries.all()},
        "tables": [
            {
                "match_key": row.match_key,
                "round": row.round,
                "stage": row.stage,
                "players": row.players,
                "best_of": row.best_of,
                "status": row.status,
                "result": row.result,
            }
            for row in tournament.tables.order_by("pk")
        ],
        "matches": [
            list(row)
            for row in sorted(tournament.matches.values_list("match_key", "game_number", "match_id"))
        ],
        "standings": [
            {**row.row, "rank": row.rank, "player": row.player}
            for row in tournament.standings.order_by("rank", "player")
        ],
    }


def tournament_standings_stored(tournament: Tournament) -> dict[str, dict[str, Any]]:
    """The stored standings rows by player, in the projection's JSON form."""
    return {
        player: {**row, "rank": rank, "player": player}
        for player, rank, row in tournament.standings.values_list("player", "rank", "row")
    }


def tournament_snapshot_problems(
    tournament: Tournament, events: list[TournamentEvent] | None = None
) -> list[str]:
    """Each stored snapshot (of the current JSON version) that differs from the log's state at its
    sequence number."""
    snapshots = {
        s.seq: s.state
        for s in tournament.snapshots.filter(version=lifecycle.STATE_JSON_VERSION).order_by("seq")
    }
    if not snapshots:
        return []
    events = tournament_log(tournament) if events is None else events
    problems = []
    state = lifecycle.new_state(tournament_spec(tournament))
    pending = sorted(snapshots)
    for event in events:
        if event.kind not in SERVICE_KINDS:
            try:
                state = lifecycle.apply(state, event.payload)
            except FormatError as error:
                raise _corrupt(tournament, error, event.seq) from None
        while pending and pending[0] == event.seq:
            seq = pending.pop(0)
            if json.loads(json.dumps(lifecycle.state_to_json(state))) != snapshots[seq]:
                problems.append(f"snapshot at event {seq} differs from the log")
    problems += [f"snapshot at event {seq} is past the log's end" for seq in pending]
    return problems


def tournament_unrecorded_matches(tournament: Tournament) -> list[int]:
    """Finished Snakepit matches of the tournament whose game the log does not hold (a lost task)."""
    recorded = {event.payload.get("match_id") for event in tournament.events.filter(kind="game_recorded")}
    # A table decided otherwise (a drop's forfeit, the organiser's correction) takes no more games.
    decided = set(tournament.tables.filter(status="decided").values_list("match_key", flat=True))
    finished = tournament.matches.filter(match__status=Match.Status.FINISHED).values_list(
        "match_id", "match_key"
    )
    return sorted(match_id for match_id, key in finished if match_id not in recorded and key not in decided)
