"""The event store's write path: events appended at the head of a match's log, chance and bots played
forward, and the match row's projection (status, outcome) kept in step.

An append is a small, fixed number of statements in one transaction: the match row read, one INSERT
of every event it adds (the action, then the chance draws and bot moves that follow it) and, when
the match ends, one UPDATE. Nothing is locked: the unique (match, seq) index does the work of a
lock, because two writers that start from the same head both try to insert its next sequence number
and the second is refused (`IntegrityError`, which the services turn into a conflict or a retry).
The state to append to is the live state (`matches.live`), never a replay of the log.

The use cases on top are in `matches.services`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from core.errors import ApplicationError, Conflict
from engines.entropy import part_commitment
from engines.playout import play_forward, service_bot_rngs
from engines.protocol import Event
from matches.feed import match_feed_publish
from matches.live import LiveMatch, live_checkin, live_checkout, live_forget, live_return_unchanged
from matches.models import Match, MatchEvent
from matches.selectors import match_entropy_deadline, match_get
from matches.signals import match_finished, match_moved

# How often a bot-playing writer starts again from the log when another writer overtook it.
OVERTAKEN_RETRIES = 3


def match_advance(*, match_id: int, chunk: int | None = None) -> int:
    """Let chance and bots play until a person must decide or the match ends; returns events added.

    The match is played in memory and written a chunk at a time, each chunk its own transaction, so
    a worker killed mid-match leaves a committed prefix of the log (losing at most one chunk's
    work) that the next run continues. A second copy of the same task racing this one computes the
    same events (chance and bots are seeded by the match seed and the sequence number); whichever
    inserts a chunk second is refused by the unique index, catches up with the log and goes on.
    """
    chunk = chunk or settings.SNAKEPIT_ADVANCE_CHUNK
    total = 0
    for _ in range(OVERTAKEN_RETRIES):
        match = match_get(match_id=match_id)
        if match.is_over:
            return total
        live = live_checkout(match, at_head=True)
        try:
            while True:
                with transaction.atomic():
                    rows = chance_and_bots_play(live, limit=chunk)
                    events_insert(rows)
                    projection_update(live)
                total += len(rows)
                if len(rows) < chunk or live.match.is_finished:
                    live_checkin(live)
                    return total
        except IntegrityError:
            live_forget(match_id)  # overtaken: our copy ran ahead of what was written; start from the log
    raise ApplicationError(
        f"match {match_id}: other writers kept overtaking this one", code="match/contended", status=503
    )


# The columns an append writes, written straight through the driver rather than with `bulk_create`:
# on a bot match's chunk of 200 events, the ORM's per-field preparation and SQL compilation, and
# psycopg's parameter binding, cost several times the database's own work, while PostgreSQL's COPY
# costs a fifth of it (measured: about 10 against 50 to 67 microseconds of CPU per row). SQLite,
# whose binding is in C, takes multi-row INSERTs.
_INSERTED = (
    "match_id",
    "seq",
    "kind",
    "seat",
    "payload",
    "schema_version",
    "actor_id",
    "idempotency_key",
    "created_at",
)
_ROWS_PER_INSERT = 1000  # SQLite: well under its limit on parameters in one statement


def events_insert(rows: list[NewEvent]) -> list[NewEvent]:
    """Write every row (stamped now) in one round trip; the unique (match, seq) index refuses a
    sequence number already taken, as an `IntegrityError`."""
    if not rows:
        return rows
    now = timezone.now()
    values = []
    for row in rows:
        row.created_at = now
        values.append(
            (
                row.match_id,
                row.seq,
                row.kind,
                row.seat,
                json.dumps(row.payload),
                row.schema_version,
                row.actor_id,
                row.idempotency_key,
                now,
            )
        )
    table, columns = MatchEvent._meta.db_table, ", ".join(_INSERTED)
    with connection.cursor() as cursor, connection.wrap_database_errors:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in values:
                    copy.write_row(row)
        else:
            placeholders = "(" + ", ".join(["%s"] * len(_INSERTED)) + ")"
            for start in range(0, len(values), _ROWS_PER_INSERT):
                part = values[start : start + _ROWS_PER_INSERT]
                cursor.execute(
                    f"INSERT INTO {table} ({columns}) VALUES {', '.join([placeholders] * len(part))}",
                    [value for row in part for value in row],
                )
    # The streams hear of it once it is committed (matches/feed.py); at once outside a transaction.
    last = rows[-1]
    transaction.on_commit(partial(match_feed_publish, match_id=last.match_id, seq=last.seq))
    return rows


@dataclass(slots=True)
class NewEvent:
    """An event on its way into the log: what `events_insert` writes (a plain record, not a model
    instance: a bot match makes them by the thousand)."""

    match_id: int
    seq: int
    kind: str
    seat: int | None
    payload: dict[str, Any]
    actor_id: int | None = None
    idempotency_key: str | None = None
    schema_version: int = 1
    created_at: datetime | None = None


def event_row(
    match: Match, seq: int, event: Event, *, actor=None, idempotency_key: str | None = None
) -> NewEvent:
    return NewEvent(
        match.pk,
        seq,
        event.kind,
        event.seat,
        dict(event.payload),
        actor.pk if actor is not None else None,
        idempotency_key or None,
    )


def bot_entropy_value(match: Match, seat: int) -> str:
    """A built-in bot's entropy part: from the match seed, like its moves (`engines.playout.bot_rng`),
    so a bot match is reproducible end to end; the log keeps it, so verifying never needs this."""
    return hmac.digest(bytes(match.seed), f"snakepit/bot-entropy/{seat}".encode(), hashlib.sha256).hex()


def _bots_contribute(live: LiveMatch) -> list[NewEvent]:
    """The bots' commit or reveal steps the seats' entropy now waits for, applied to the live state."""
    contributions, rows = live.contributions, []
    if contributions is None:
        return rows
    for _ in range(2):  # the last bot to commit may close the commit window: then the bots reveal
        phase = contributions.phase
        if phase == "done":
            break
        for seat in contributions.awaited():
            if not live.seat_bots[seat]:
                continue
            value = bot_entropy_value(live.match, seat)
            payload = (
                {"step": "commit", "commitment": part_commitment(value)}
                if phase == "commit"
                else {
                    "step": "reveal",
                    "value": value,
                }
            )
            contributions.apply(seat, payload)
            live.seq += 1
            rows.append(NewEvent(live.match.pk, live.seq, MatchEvent.Kind.ENTROPY, seat, payload))
            if contributions.phase != phase:
                break
    return rows


def chance_and_bots_play(live: LiveMatch, *, limit: int | None = None) -> list[NewEvent]:
    """Advance the live state by chance outcomes and bot actions until a person must decide or the
    match is over, and return the rows to insert (not yet written). In a match that takes entropy
    from its seats, the bots add theirs at once, and chance waits until every seat's part is in.
    The engine loop itself is `engines.playout.play_forward`, the one the benchmark times.

    Without a `limit`, running past SNAKEPIT_MAX_AUTO_EVENTS means an engine never hands the turn
    back, and is an error; with one, it is the caller's chunk size and the caller loops.
    """
    game, match = live.game, live.match
    pending: list[NewEvent] = _bots_contribute(live)
    contributions = live.contributions
    chance_waits = contributions is not None and contributions.phase != "done"
    bots = game.bots()
    most = limit or settings.SNAKEPIT_MAX_AUTO_EVENTS
    events = play_forward(
        game,
        live.state,
        bots=[bots[name] if name else None for name in live.seat_bots],
        after=live.seq,
        chance_key=None if chance_waits else live.chance_key(),
        rng_for=service_bot_rngs(bytes(match.seed)),
        limit=most,
    )
    for event in events:
        live.seq += 1
        pending.append(event_row(match, live.seq, event))
    if len(events) == most and not limit:
        raise ApplicationError(
            f"match {match.pk}: chance and bots made {most} moves in a row",
            code="match/runaway",
            status=500,
        )
    return pending


def projection_update(live: LiveMatch) -> None:
    """Keep the queryable projection (status, outcome) in step with the log; once the transaction
    that finished the match commits, tell whoever listens (ladders, tournaments)."""
    match = live.match
    outcome = live.game.outcome(live.state)
    if outcome is not None and not match.is_finished:
        match.status = Match.Status.FINISHED
        match.outcome = outcome.to_json()
        match.finished_at = timezone.now()
        match.save(update_fields=["status", "outcome", "finished_at"])
        match_id = match.pk
        transaction.on_commit(lambda: match_finished.send(sender=Match, match_id=match_id))


def moved_announce(live: LiveMatch, *, actor_seat: int | None) -> None:
    """After a seat's own step, tell listeners (once committed) which seats must act now: those whose
    entropy step an open window awaits, else those the engine asks to decide; nothing once over, nor
    when only the actor or built-in bots must act."""
    contributions = live.contributions
    if contributions is not None and contributions.phase != "done":
        deciding = tuple(contributions.awaited())
    else:
        decision = live.game.decision(live.state)
        if decision.kind not in ("turn", "simultaneous", "response"):
            return
        deciding = tuple(decision.seats)
    # Built-in bots have already played, and the actor knows it is still their turn: only someone
    # else holding a seat through an account (a person, an uploaded bot) may need telling.
    if all(seat == actor_seat or live.seat_bots[seat] for seat in deciding):
        return
    match_id = live.match.pk
    transaction.on_commit(
        lambda: match_moved.send(sender=Match, match_id=match_id, actor_seat=actor_seat, deciding=deciding)
    )


def match_entropy_lapse(*, match_id: int, now=None) -> list[NewEvent]:
    """Once a window's deadline has passed, record a `lapse` for every seat it still waits for (their
    parts default as `engines.entropy.lapse_part` says) and let chance play on. Before the deadline,
    or when nothing is awaited, writes nothing."""
    now = now or timezone.now()
    for _attempt in range(2):
        try:
            with transaction.atomic():
                match = match_get(match_id=match_id)
                if match.is_over or match.entropy != Match.Entropy.CONTRIBUTED:
                    return []
                live = live_checkout(match, at_head=True)
                deadline = match_entropy_deadline(match, live.contributions)
                if deadline is None or now < deadline:
                    live_return_unchanged(live)
                    return []
                rows = []
                for seat in live.contributions.awaited():
                    payload = live.contributions.lapse_payload(seat)
                    live.contributions.apply(seat, payload)
                    live.seq += 1
                    rows.append(NewEvent(match.pk, live.seq, MatchEvent.Kind.ENTROPY, seat, payload))
                rows += chance_and_bots_play(live)
                events_insert(rows)
                projection_update(live)
                moved_announce(live, actor_seat=None)
                live_checkin(live)
                return rows
        except IntegrityError:
            live_forget(match_id)
    raise Conflict("the match kept moving; try again", code="match/stale_seq")
