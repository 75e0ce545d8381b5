"""Event store figures, in the bench's throwaway database: the raw ceilings of the database itself
(one row per commit, and 200 rows per commit, into a table shaped like the event table, straight
through the driver), then appends through the match store, one event per transaction and in
chunks of 200, with the ratio of each to its ceiling measured in the same run; and what a viewer's
listing of a running match costs on a long log against a short one."""

from __future__ import annotations

import json
import statistics
import time

from django.db import connection

from matches.models import Match
from matches.selectors import match_event_listing
from matches.services import SeatSpec, match_create
from matches.store import NewEvent, events_insert, match_advance
from snakepit import bench
from snakepit.bench import Figure

# Long bot matches, so that a figure measures appends and not match creation.
LONG_MATCH = {"passes": 20, "starting_purse": 2000, "max_side_bet": 10}
SEATS = 6
CEILING_TABLE = "bench_event_ceiling"
PAYLOAD = json.dumps({"type": "side_bet", "prediction": "check_the_silo", "stake": 2})
# A listing as a page or a stream polls it: the events after one the viewer saw a moment ago.
RECENT_EVENTS = 10
LISTING_CALLS = 200


def figures() -> list[Figure]:
    seconds = bench.BENCH_SECONDS
    single_ceiling = _ceiling(rows_per_commit=1, seconds=seconds)
    batch_ceiling = _ceiling(rows_per_commit=200, seconds=seconds)
    single = _appends(chunk=1, seconds=seconds)
    batched = _appends(chunk=200, seconds=seconds)
    listing_short, listing_long = _listing_ms(events=50), _listing_ms(events=5000)
    vendor = connection.vendor
    return [
        Figure(
            "ceiling.pg_insert_commit_per_s",
            f"Raw {vendor} ceiling: one event-shaped row per commit",
            single_ceiling,
            "rows/s",
        ),
        Figure(
            "ceiling.pg_batch_rows_per_s",
            f"Raw {vendor} ceiling: 200 event-shaped rows per commit",
            batch_ceiling,
            "rows/s",
        ),
        Figure(
            "store.append_single_events_per_s",
            "Event store appends, bot match, one event per transaction",
            single,
            "events/s",
        ),
        Figure(
            "store.append_single_vs_ceiling",
            "  ... as a share of its raw ceiling (target >= 0.5)",
            single / single_ceiling,
            "ratio",
        ),
        Figure(
            "store.append_batched_events_per_s",
            "Event store appends, bot match, chunks of 200 events",
            batched,
            "events/s",
        ),
        Figure(
            "store.append_batched_vs_ceiling",
            "  ... as a share of its raw ceiling (target >= 0.5)",
            batched / batch_ceiling,
            "ratio",
        ),
        Figure(
            "store.listing_ms_5000_vs_50",
            f"A seat's listing of a running match, the last {RECENT_EVENTS} events: 5,000-event log over"
            f" 50 ({listing_long:.3f} ms over {listing_short:.3f} ms; target <= 1.5)",
            listing_long / listing_short,
            "ratio",
        ),
    ]


def _appends(*, chunk: int, seconds: float) -> float:
    """Events per second appended by `match_advance` playing long bot matches in chunks of `chunk`
    (creating each match is not timed)."""
    appended, elapsed = 0, 0.0
    while elapsed < seconds:
        match = match_create(
            game_key="rat-snake",
            seats=[SeatSpec(bot="random")] * SEATS,
            options=LONG_MATCH,
            bots_play="caller",
        )
        started = time.perf_counter()
        appended += match_advance(match_id=match.pk, chunk=chunk)
        elapsed += time.perf_counter() - started
        if not Match.objects.get(pk=match.pk).is_finished:
            raise RuntimeError(f"bench match {match.pk} did not finish")
    return appended / elapsed


def _listing_ms(*, events: int) -> float:
    """Milliseconds (the median of LISTING_CALLS calls) for `match_event_listing`, as the API calls it
    for seat 0, of the last RECENT_EVENTS events of a running match whose log has `events`.

    No game of these rules runs to 5,000 events, so the log is a real bot match's rows (with side
    bets, whose payloads are their author's alone) written again and again, renumbered, through
    the store's own insert: a listing reads rows and their stored audiences, it replays nothing, so
    what the rows say does not change what it costs."""
    played = match_create(
        game_key="rat-snake", seats=[SeatSpec(bot="random")] * SEATS, options=LONG_MATCH, bots_play="now"
    )
    source = list(played.events.order_by("seq").values_list("kind", "seat", "payload", "audience"))
    match = match_create(
        game_key="rat-snake", seats=[SeatSpec(bot="random")] * SEATS, options=LONG_MATCH, bots_play="caller"
    )
    rows = []
    for seq in range(1, events + 1):
        kind, seat, payload, audience = source[(seq - 1) % len(source)]
        rows.append(NewEvent(match.pk, seq, kind, seat, payload, audience=audience))
    events_insert(rows)
    timings = []
    for _ in range(LISTING_CALLS):
        started = time.perf_counter()
        listing = match_event_listing(match, viewer_seat=0, after=events - RECENT_EVENTS)
        timings.append(time.perf_counter() - started)
    if len(listing) != RECENT_EVENTS or match.is_over:
        raise RuntimeError(f"the listing of bench match {match.pk} is not the last {RECENT_EVENTS} events")
    return statistics.median(timings) * 1000


def _ceiling(*, rows_per_commit: int, seconds: float) -> float:
    """Rows per second inserted straight through the driver into a table shaped like the event table
    (same columns, the same unique (match, seq) index), `rows_per_commit` rows per transaction."""
    connection.ensure_connection()
    raw = connection.connection  # the driver's own connection (psycopg or sqlite3), not the ORM
    timestamp = "CURRENT_TIMESTAMP"
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {CEILING_TABLE}")
        json_type = "jsonb" if connection.vendor == "postgresql" else "text"
        identity = (
            "GENERATED BY DEFAULT AS IDENTITY" if connection.vendor == "postgresql" else "AUTOINCREMENT"
        )
        cursor.execute(
            f"CREATE TABLE {CEILING_TABLE} (id integer PRIMARY KEY {identity},"
            f" match_id bigint NOT NULL, seq integer NOT NULL, kind varchar(10) NOT NULL, seat smallint,"
            f" payload {json_type} NOT NULL, schema_version smallint NOT NULL, actor_id bigint,"
            f" idempotency_key varchar(100), created_at timestamp NOT NULL, audience integer,"
            f" UNIQUE (match_id, seq))"
        )
    placeholder = "%s" if connection.vendor == "postgresql" else "?"
    insert = (
        f"INSERT INTO {CEILING_TABLE} (match_id, seq, kind, seat, payload, schema_version, audience,"
        f" created_at) VALUES ({', '.join([placeholder] * 7)}, {timestamp})"
    )
    autocommit = connection.get_autocommit()
    connection.set_autocommit(False)
    try:
        seq, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds:
            rows = [(1, seq + n + 1, "action", 1, PAYLOAD, 1, -1) for n in range(rows_per_commit)]
            seq += rows_per_commit
            cursor = raw.cursor()
            if rows_per_commit == 1:
                cursor.execute(insert, rows[0])
            else:
                cursor.executemany(insert, rows)
            raw.commit()
        return seq / elapsed
    finally:
        raw.rollback()
        connection.set_autocommit(autocommit)
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE {CEILING_TABLE}")
