"""Who is told that a match's log has grown: the fan-out behind the match streams (api/streams.py).

A notification carries only (match id, head seq), never a payload: a stream that hears one reads the
log after the last seq it sent (`matches.selectors.match_event_listing`), as its viewer may read it.
So a notification lost (a restart, Redis away, a dropped connection) costs only latency: every stream
also looks at the log's head every `feed_poll_seconds()` and catches up from the log by seq, and
nothing is ever skipped or sent twice, since what is sent is decided by seq alone.

- In one process (the embedded default, and every web process for the appends it makes itself):
  waiters registered here are woken directly, from whichever thread committed the append.
- Across processes (several web processes, workers appending for uploaded bots): with REDIS_URL set,
  each commit is also published on Redis (`snakepit:match:<id>`, the seq as the message), and each web
  process that has streams open runs one subscriber (`feed_listen`) that wakes its waiters. Redis
  pub/sub rather than PostgreSQL LISTEN/NOTIFY: Redis is already required by more than one process
  (`manage.py up --web 2`), and LISTEN needs a session of its own per web process, which PgBouncer in
  transaction mode (deploy/pgbouncer) cannot give.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import defaultdict

from django.conf import settings

logger = logging.getLogger(__name__)

CHANNEL_PREFIX = "snakepit:match:"

_waiters: dict[int, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = defaultdict(set)
# How many announcements each match with waiters has had: a stream may share a read of the log that
# another stream started after the announcement that woke it (api/streams.py), never one before.
_announced: dict[int, int] = defaultdict(int)
_lock = threading.Lock()
_publisher = None
_publish_paused_until = 0.0
PUBLISH_PAUSE_SECONDS = 5.0
_listener: asyncio.Task | None = None


def feed_poll_seconds() -> float:
    """How often a stream looks at the log's head itself: often where no other process's appends are
    announced (the embedded default's worker), seldom where Redis announces them."""
    return settings.SNAKEPIT_STREAM_POLL_SECONDS or (15.0 if settings.REDIS_URL else 1.0)


def match_feed_publish(*, match_id: int, seq: int) -> None:
    """Announce that match `match_id`'s log reaches `seq` (called once the append has committed)."""
    global _publish_paused_until
    _wake(match_id)
    if not settings.REDIS_URL or time.monotonic() < _publish_paused_until:
        return
    try:
        _redis().publish(f"{CHANNEL_PREFIX}{match_id}", str(seq))
    except Exception:  # noqa: BLE001  Redis away: the streams' own look at the log catches up
        # Not tried again for a while, so that appends do not each wait for Redis's timeout.
        _publish_paused_until = time.monotonic() + PUBLISH_PAUSE_SECONDS
        logger.warning(
            "could not announce match %s at %s on Redis; streams catch up by polling", match_id, seq
        )


def _redis():
    global _publisher
    if _publisher is None:
        import redis

        _publisher = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    return _publisher


def _wake(match_id: int) -> None:
    with _lock:
        waiters = list(_waiters.get(match_id, ()))
        if waiters:
            _announced[match_id] += 1
    for loop, event in waiters:
        try:
            loop.call_soon_threadsafe(event.set)
        except RuntimeError:  # that loop has closed: its stream is gone
            pass


class MatchSubscription:
    """A stream's ear on one match, registered before the stream first reads the log, so that an
    append committed between a read and the next wait is never missed:

        with MatchSubscription(match_id) as feed:
            while True:
                ...read and send the log after the last seq sent...
                await feed.wait(timeout=feed_poll_seconds())
    """

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self._event = asyncio.Event()
        self._waiter = None

    def __enter__(self) -> MatchSubscription:
        loop = asyncio.get_running_loop()
        self._waiter = (loop, self._event)
        with _lock:
            _waiters[self.match_id].add(self._waiter)
        _listen_started(loop)
        return self

    def __exit__(self, *exc) -> None:
        with _lock:
            _waiters[self.match_id].discard(self._waiter)
            if not _waiters[self.match_id]:
                del _waiters[self.match_id]
                _announced.pop(self.match_id, None)

    def announced(self) -> int:
        """The number of announcements of this match heard so far (read it before reading the log)."""
        with _lock:
            return _announced.get(self.match_id, 0)

    async def wait(self, *, timeout: float) -> bool:
        """Until an append is announced (or was, since the last wait), or `timeout` seconds; whether
        one was."""
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            self._event.clear()


def _listen_started(loop: asyncio.AbstractEventLoop) -> None:
    """One Redis subscriber per event loop that has streams (a web process has one loop)."""
    global _listener
    if not settings.REDIS_URL:
        return
    if _listener is not None and not _listener.done() and _listener.get_loop() is loop:
        return
    _listener = loop.create_task(feed_listen())


async def feed_listen() -> None:
    """Relay Redis's announcements to this process's waiters, reconnecting after a failure."""
    import redis.asyncio

    while True:
        try:
            client = redis.asyncio.Redis.from_url(settings.REDIS_URL)
            async with client.pubsub() as pubsub:
                await pubsub.psubscribe(f"{CHANNEL_PREFIX}*")
                async for message in pubsub.listen():
                    if message.get("type") != "pmessage":
                        continue
                    channel = message["channel"].decode()
                    match_id = channel.removeprefix(CHANNEL_PREFIX)
                    if match_id.isdigit():
                        _wake(int(match_id))
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001  the streams poll meanwhile; try again shortly
            logger.warning("the match feed lost Redis; streams poll the log until it is back")
            await asyncio.sleep(1)
