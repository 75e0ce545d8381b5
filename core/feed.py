"""Who is told that something a stream shows has changed: the fan-out behind every event stream
(docs/api.md, "Streams"), by topic ("match:<id>", "tournament:<id>", "ladder:<id>").

A notification carries only (topic, head seq), never a payload: a stream that hears one reads its
source again (a match's log after the last seq it sent, a tournament's tables), as its viewer may
read it. So a notification lost (a restart, Redis away, a dropped connection) costs only latency:
every stream also reads its source every `feed_poll_seconds()`, and what it sends is decided by what
it reads, never by the notification.

- In one process (the embedded default, and every web process for the writes it makes itself):
  waiters registered here are woken directly, from whichever thread committed the write.
- Across processes (several web processes, workers writing for bots and results): with REDIS_URL
  set, each commit is also published on Redis (`snakepit:<topic>`, the message "<seq> <origin>"),
  and each web process that has streams open runs one subscriber (`feed_listen`), subscribed to the
  one prefix, that wakes its waiters; it passes over its own process's announcements (`_origin`),
  whose waiters were woken directly, so that an append is not read twice. Redis pub/sub rather than
  PostgreSQL LISTEN/NOTIFY: Redis is already required by more than one process (`manage.py up --web
  2`), and LISTEN needs a session of its own per web process, which PgBouncer in transaction mode
  (deploy/pgbouncer) cannot give.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import threading
import time
from collections import defaultdict

from django.conf import settings

logger = logging.getLogger(__name__)

CHANNEL_PREFIX = "snakepit:"

_waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = defaultdict(set)
# How many announcements each topic with waiters has had: a stream may share a read that another
# stream started after the announcement that woke it, never one started before.
_announced: dict[str, int] = defaultdict(int)
_lock = threading.Lock()
_publisher = None
_publish_paused_until = 0.0
PUBLISH_PAUSE_SECONDS = 5.0
_listener: asyncio.Task | None = None


def feed_poll_seconds() -> float:
    """How often a stream reads its source itself: often where no other process's writes are
    announced (the embedded default's worker), seldom where Redis announces them."""
    return settings.SNAKEPIT_STREAM_POLL_SECONDS or (15.0 if settings.REDIS_URL else 1.0)


def feed_publish(topic: str, seq: int | None) -> None:
    """Announce that `topic` has reached `seq` (None: a source with no log, which has changed);
    called once the write has committed."""
    global _publish_paused_until
    _wake(topic)
    if not settings.REDIS_URL or time.monotonic() < _publish_paused_until:
        return
    try:
        _redis().publish(f"{CHANNEL_PREFIX}{topic}", f"{'' if seq is None else seq} {_origin()}")
    except Exception:  # noqa: BLE001  Redis away: the streams' own reads catch up
        # Not tried again for a while, so that writes do not each wait for Redis's timeout.
        _publish_paused_until = time.monotonic() + PUBLISH_PAUSE_SECONDS
        logger.warning("could not announce %s at %s on Redis; streams catch up by polling", topic, seq)


_origins: dict[int, str] = {}


def _origin() -> str:
    """This process's name on the feed: its pid (a forked child is another process) and a random
    part (a pid is reused)."""
    pid = os.getpid()
    if pid not in _origins:
        _origins[pid] = f"{pid}-{secrets.token_hex(4)}"
    return _origins[pid]


def _redis():
    global _publisher
    if _publisher is None:
        import redis

        _publisher = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    return _publisher


def _wake(topic: str) -> None:
    with _lock:
        waiters = list(_waiters.get(topic, ()))
        if waiters:
            _announced[topic] += 1
    for loop, event in waiters:
        try:
            loop.call_soon_threadsafe(event.set)
        except RuntimeError:  # that loop has closed: its stream is gone
            pass


class Subscription:
    """A stream's ear on one topic, registered before the stream first reads its source, so that a
    write committed between a read and the next wait is never missed:

        with Subscription("tournament:7") as feed:
            while True:
                ...read the source and send what changed...
                await feed.wait(timeout=feed_poll_seconds())
    """

    def __init__(self, topic: str) -> None:
        self.topic = topic
        self._event = asyncio.Event()
        self._waiter = None

    def __enter__(self):
        loop = asyncio.get_running_loop()
        self._waiter = (loop, self._event)
        with _lock:
            _waiters[self.topic].add(self._waiter)
        _listen_started(loop)
        return self

    def __exit__(self, *exc) -> None:
        with _lock:
            _waiters[self.topic].discard(self._waiter)
            if not _waiters[self.topic]:
                del _waiters[self.topic]
                _announced.pop(self.topic, None)

    def announced(self) -> int:
        """The number of announcements of this topic heard so far (read it before reading)."""
        with _lock:
            return _announced.get(self.topic, 0)

    async def wait(self, *, timeout: float) -> bool:
        """Until a write is announced (or was, since the last wait), or `timeout` seconds; whether
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
                    if message["data"].decode(errors="replace").endswith(f" {_origin()}"):
                        continue  # this process's own, whose waiters were woken at the commit
                    _wake(message["channel"].decode().removeprefix(CHANNEL_PREFIX))
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001  the streams poll meanwhile; try again shortly
            logger.warning("the stream feed lost Redis; streams poll their sources until it is back")
            await asyncio.sleep(1)
