"""What every write of a tournament shares: one change to its log under its row lock
(`TournamentChange`), the reducer's refusals as errors, and the checks of who may act and when.

Every change is an event appended to the tournament's log under the tournament's row lock, after the
pure reducer (`tournaments.formats.lifecycle`) has accepted it against the current state (cached, or
rebuilt from the latest snapshot: `selectors.tournament_head`); then only the projection rows the
action changed are written (entries, tables, matches, standings). An action out of order (pairing
before a round is complete, reporting a decided table) is refused with a 409 and a code, and writes
nothing."""

from __future__ import annotations

import json
from typing import Any

from django.db import connection

from core.errors import ApplicationError, Conflict, Forbidden, NotFound, Rejected
from tournaments.feed import tournament_feed_publish_on_commit
from tournaments.formats import lifecycle
from tournaments.formats.common import FormatError
from tournaments.models import (
    Tournament,
    TournamentEntry,
    TournamentEvent,
    TournamentSnapshot,
    TournamentStanding,
    TournamentTable,
)
from tournaments.selectors import (
    ENTRY_STATUS,
    SERVICE_KINDS,
    TournamentHead,
    standing_rows,
    table_row,
    tournament_head,
    tournament_head_remember,
    tournament_standings_stored,
)

# A snapshot of the reducer's state is saved whenever this many events have passed since the last
# multiple of it, and after every pairing; a process without the state cached folds at most this
# many events (or one round's results) onto the latest one. The latest SNAPSHOTS_KEPT are kept.
SNAPSHOT_EVERY = 100


SNAPSHOTS_KEPT = 2


# Reducer refusals that mean "not now" rather than "never": answered with 409.
OUT_OF_ORDER = frozenset(
    {
        "round/not_complete",
        "result/already_recorded",
        "result/bracket_moved_on",
        "tournament/complete",
        "tournament/not_started",
        "tournament/not_complete",
        "tournament/already_started",
        "player/already_registered",
        "result/disputed",
        "result/nothing_to_confirm",
        "result/nothing_to_dispute",
        "player/already_dropped",
        "round/already_started",
        "round/not_latest",
        "round/nothing_to_repair",
    }
)


def reducer_refusal(error: FormatError) -> ApplicationError:
    """The reducer's refusal as the error the API renders: 409 for "not now", 422 for "never"."""
    status = 409 if error.code in OUT_OF_ORDER else 422
    return ApplicationError(error.detail, code=error.code, status=status)


def require_organiser(tournament: Tournament, user) -> None:
    if not (user.is_staff or tournament.organiser_id == user.pk):
        raise Forbidden(
            "only the organiser (or staff) manages this tournament", code="tournament/not_organiser"
        )


def require_status(tournament: Tournament, *allowed: str) -> None:
    if tournament.status not in allowed:
        raise Conflict(
            f"the tournament is {tournament.status}; this needs it {' or '.join(allowed)}",
            code="tournament/wrong_status",
        )


def entry_for(tournament: Tournament, user, player: str | None) -> TournamentEntry:
    """The entry `user` acts for: their own, or (organisers) any named player."""
    if player is not None:
        entry = tournament.entries.filter(player=player).first()
        if entry is None:
            raise NotFound(f"no player {player!r} in this tournament", code="player/not_found")
        if entry.user_id != user.pk:
            require_organiser(tournament, user)
        return entry
    entry = tournament.entries.filter(user=user).first()
    if entry is None:
        raise Forbidden("you are not registered in this tournament", code="player/not_registered")
    return entry


def players_named(tournament: Tournament, names: list[str]) -> list[str]:
    """Player ids for usernames (or player ids, as the log and the listings show them); an unknown
    name is a 422 that names it."""
    entries = list(tournament.entries.select_related("user"))
    # A username wins over a player id that happens to be spelt the same.
    by_name = {entry.player: entry.player for entry in entries} | {
        entry.label: entry.player for entry in entries
    }
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise Rejected(f"not registered here: {', '.join(map(repr, unknown[:10]))}", code="player/not_found")
    return [by_name[name] for name in names]


class TournamentChange:
    """One action on one tournament whose row lock the caller holds: its events, each applied to the
    current state by the reducer (a refusal raises and writes nothing) and appended; then `project`
    writes only the projection rows they changed, saves a snapshot when one is due, and caches the
    new state once the transaction commits."""

    def __init__(self, tournament: Tournament):
        self.tournament = tournament
        self.before = tournament_head(tournament)
        self.state = self.before.state
        self.seq = self.before.seq
        self.events: list[TournamentEvent] = []

    def append(self, payload: dict[str, Any], *, actor=None) -> TournamentEvent:
        kind = payload["kind"]
        state = self.state
        if kind not in SERVICE_KINDS:
            try:
                state = lifecycle.apply(state, payload)
            except FormatError as error:
                raise reducer_refusal(error) from None
        event = TournamentEvent.objects.create(
            tournament=self.tournament, seq=self.seq + 1, kind=kind, payload=payload, actor=actor
        )
        self.state, self.seq = state, event.seq
        self.events.append(event)
        tournament_feed_publish_on_commit(tournament_id=self.tournament.pk, seq=event.seq)
        return event

    def project(self) -> None:
        tournament, before, state = self.tournament, self.before.state, self.state
        statuses = {e.payload["player"]: ENTRY_STATUS[e.kind] for e in self.events if e.kind in ENTRY_STATUS}
        for player, status in statuses.items():
            tournament.entries.filter(player=player).exclude(status=status).update(status=status)
        self._project_tables(before.tables, state.tables)
        standings = self.before.standings
        if lifecycle.standings_may_change(before, state):
            standings = self._project_standings(standings)
        if self.seq // SNAPSHOT_EVERY > self.before.seq // SNAPSHOT_EVERY or any(
            e.kind in ("started", "round_paired") for e in self.events
        ):
            self._snapshot()
        tournament_head_remember(tournament, TournamentHead(state, self.seq, standings))

    def _project_tables(self, before: tuple, after: tuple) -> None:
        """The reducer appends tables and replaces the ones an event touches, sharing the rest, so
        the tables that are not the very same objects are the ones to write."""
        tournament = self.tournament
        if len(after) < len(before):  # never done by the reducer; rewrite them all rather than guess
            tournament.tables.all().delete()
            before = ()
        for old, new in zip(before, after):
            if new is not old and (row := table_row(new)) != table_row(old):
                row = _json(row)
                key = row.pop("match_key")
                tournament.tables.filter(match_key=key).update(**row)
        TournamentTable.objects.bulk_create(
            TournamentTable(tournament=tournament, **_json(table_row(t))) for t in after[len(before) :]
        )

    def _project_standings(self, stored: dict[str, dict] | None) -> dict[str, dict]:
        """Write the standings rows whose values changed; return them all. A result moves many
        players up or down a place and changes the numbers of only a few: a row whose rank alone
        moved gets its rank column set, the others are written anew (the JSON holds no rank)."""
        tournament = self.tournament
        rows = {row["player"]: row for row in standing_rows(self.state)}
        stored = tournament_standings_stored(tournament) if stored is None else stored
        rewrite, rerank = [], {}
        for player, row in rows.items():
            old = stored.get(player)
            if old is None or {**old, "rank": row["rank"]} != row:
                rewrite.append(row)
            elif old["rank"] != row["rank"]:
                rerank[player] = row["rank"]
        gone = [player for player in stored if player not in rows]
        if rewrite or gone:
            tournament.standings.filter(player__in=[row["player"] for row in rewrite] + gone).delete()
            TournamentStanding.objects.bulk_create(
                TournamentStanding(
                    tournament=tournament, player=row["player"], rank=row["rank"], row=standing_unranked(row)
                )
                for row in rewrite
            )
        if rerank:
            _ranks_save(tournament, rerank)
        return rows

    def _snapshot(self) -> None:
        tournament = self.tournament
        TournamentSnapshot.objects.create(
            tournament=tournament,
            seq=self.seq,
            version=lifecycle.STATE_JSON_VERSION,
            state=lifecycle.state_to_json(self.state),
        )
        old = tournament.snapshots.order_by("-seq").values_list("pk", flat=True)[SNAPSHOTS_KEPT:]
        tournament.snapshots.filter(pk__in=list(old)).delete()


def _json(value):
    return json.loads(json.dumps(value))


def _ranks_save(tournament: Tournament, ranks: dict[str, int]) -> None:
    """One UPDATE per moved row, sent with executemany (psycopg pipelines them). An UPDATE with a
    CASE over hundreds of players costs Django more to build than the rest of the action."""
    table, quote = TournamentStanding._meta.db_table, connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {quote(table)} SET rank = %s WHERE tournament_id = %s AND player = %s",
            [(rank, tournament.pk, player) for player, rank in ranks.items()],
        )


def standing_unranked(row: dict) -> dict:
    """A standings row as its JSON column keeps it: the rank lives in its own column."""
    return {key: value for key, value in row.items() if key != "rank"}
