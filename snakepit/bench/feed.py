"""Announcements across processes, the two mechanisms issue #29 offers for the match feed
(matches/feed.py), timed as the service would use each: Redis pub/sub (a publish per committed
append, one `psubscribe` per web process through redis.asyncio) and PostgreSQL LISTEN/NOTIFY (a
`pg_notify` per committed append on the service's own connection, one psycopg 3 AsyncConnection
LISTENing per web process).

The publisher is this process; the subscriber is another (`python -m snakepit.bench.feed`), whose
event loop takes each announcement as the feed's listener does and notes when it arrived. Both note
times on CLOCK_MONOTONIC (`time.monotonic`), which on Linux is one clock for every process, so a
latency is the arrival's time less the publish call's start. Two runs per mechanism:
- latency: announcements spaced FEED_GAP_SECONDS apart, so that none waits behind another (p50, p99);
- rate: as many as possible back to back, announcements per second from the first publish to the
  last arrival.

The announcements go to channels of the bench's own (`CHANNEL_PREFIX` on Redis, whose channels every
database number shares; `CHANNEL` on PostgreSQL, in the throwaway database), so no stream of a running
service hears them. On the embedded default (no Redis, SQLite) neither applies: the feed is the
process's own waiters, and the figures are left out with a line on stderr.
"""

from __future__ import annotations

import asyncio
import json
import math
import subprocess
import sys
import time

from snakepit.bench import Figure

CHANNEL_PREFIX = "snakepit-bench:match:"
CHANNEL = "snakepit_bench_match"
FEED_GAP_SECONDS = 0.002
LATENCY_ANNOUNCEMENTS = 500
RATE_ANNOUNCEMENTS = 5000
MATCH_ID = 1
SUBSCRIBER_TIMEOUT = 60.0


def figures(latency_count: int = LATENCY_ANNOUNCEMENTS, rate_count: int = RATE_ANNOUNCEMENTS) -> list[Figure]:
    from django.conf import settings
    from django.db import connection

    from snakepit.bench.isolation import bench_redis_url
    from snakepit.processes import database_url

    rows = []
    if settings.REDIS_URL:
        url = bench_redis_url(settings.REDIS_URL)
        rows += _figures("redis", "Redis pub/sub", url, _RedisPublisher(url), latency_count, rate_count)
    else:
        print("live.feed_redis_*: not applicable, no Redis (REDIS_URL) configured", file=sys.stderr)
    if connection.vendor == "postgresql":
        publisher = _PgPublisher()
        rows += _figures(
            "pg_notify", "PostgreSQL LISTEN/NOTIFY", database_url(), publisher, latency_count, rate_count
        )
    else:
        print("live.feed_pg_notify_*: not applicable, the database is not PostgreSQL", file=sys.stderr)
    return rows


def _figures(key: str, name: str, url: str, publisher, latency_count: int, rate_count: int) -> list[Figure]:
    latencies = sorted(_announce(key, url, publisher, latency_count, gap=FEED_GAP_SECONDS)[0])
    _, first_sent, last_arrived = _announce(key, url, publisher, rate_count, gap=0.0)
    per_s = rate_count / (last_arrived - first_sent)
    label = f"Announcements across processes by {name}"
    return [
        Figure(
            f"live.feed_{key}_p50_ms", f"{label}, p50 ({latency_count} spaced)", _ms(latencies, 0.5), "ms"
        ),
        Figure(
            f"live.feed_{key}_p99_ms", f"{label}, p99 ({latency_count} spaced)", _ms(latencies, 0.99), "ms"
        ),
        Figure(f"live.feed_{key}_per_s", f"{label}, back to back ({rate_count})", per_s, "announcements/s"),
    ]


def _ms(ordered: list[float], share: float) -> float:
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)] * 1000


def _announce(key: str, url: str, publisher, count: int, *, gap: float) -> tuple[list[float], float, float]:
    """`count` announcements (seqs 1..count of one match) from this process to a subscriber process:
    each one's latency in seconds, the first publish's time and the last arrival's."""
    from django.conf import settings

    subscriber = subprocess.Popen(
        [sys.executable, "-m", "snakepit.bench.feed", key, url, str(count)],
        cwd=settings.BASE_DIR,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        if subscriber.stdout.readline().strip() != "listening":
            raise RuntimeError(f"the {key} subscriber did not start (exit code {subscriber.poll()})")
        sent = []
        for seq in range(1, count + 1):
            sent.append(time.monotonic())
            publisher.publish(seq)
            if gap:
                time.sleep(gap)
        out, _ = subscriber.communicate(timeout=SUBSCRIBER_TIMEOUT)
    finally:
        if subscriber.poll() is None:
            subscriber.kill()
            subscriber.wait()
        publisher.close()
    arrived = json.loads(out)
    if len(arrived) != count:
        raise RuntimeError(f"the {key} subscriber heard {len(arrived)} of {count} announcements")
    return [arrived[seq - 1] - sent[seq - 1] for seq in range(1, count + 1)], sent[0], max(arrived)


class _RedisPublisher:
    """As `matches.feed.match_feed_publish` publishes: redis-py's client, the seq as the message."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = None

    def publish(self, seq: int) -> None:
        if self.client is None:
            import redis

            self.client = redis.Redis.from_url(self.url, socket_timeout=1, socket_connect_timeout=1)
        self.client.publish(f"{CHANNEL_PREFIX}{MATCH_ID}", str(seq))

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


class _PgPublisher:
    """A NOTIFY after the append has committed, on the service's own database connection (Django's,
    autocommit): one statement and its commit per announcement."""

    def publish(self, seq: int) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, f"{MATCH_ID}:{seq}"])

    def close(self) -> None:
        pass


# --- the subscriber process ---------------------------------------------------------------------


async def _redis_listen(url: str, count: int) -> list[float]:
    """As `matches.feed.feed_listen` listens: one psubscribe over every match's channel."""
    import redis.asyncio

    arrived = [0.0] * count
    heard = 0
    client = redis.asyncio.Redis.from_url(url)
    async with client.pubsub() as pubsub:
        await pubsub.psubscribe(f"{CHANNEL_PREFIX}*")
        print("listening", flush=True)
        async for message in pubsub.listen():
            if message.get("type") != "pmessage":
                continue
            now = time.monotonic()
            match_id = message["channel"].decode().removeprefix(CHANNEL_PREFIX)
            if match_id.isdigit():
                arrived[int(message["data"]) - 1] = now
                heard += 1
                if heard == count:
                    break
    await client.aclose()
    return arrived


async def _pg_listen(url: str, count: int) -> list[float]:
    """One psycopg 3 AsyncConnection LISTENing on the one channel every match's announcements share
    (LISTEN takes no patterns), its payload "<match>:<seq>"."""
    import psycopg

    arrived = [0.0] * count
    heard = 0
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as connection:
        await connection.execute(f"LISTEN {CHANNEL}")
        print("listening", flush=True)
        async for notify in connection.notifies():
            now = time.monotonic()
            match_id, seq = notify.payload.split(":")
            if match_id.isdigit():
                arrived[int(seq) - 1] = now
                heard += 1
                if heard == count:
                    break
    return arrived


def main(argv: list[str]) -> None:
    kind, url, count = argv[0], argv[1], int(argv[2])
    listen = _redis_listen if kind == "redis" else _pg_listen
    print(json.dumps(asyncio.run(asyncio.wait_for(listen(url, count), SUBSCRIBER_TIMEOUT))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
