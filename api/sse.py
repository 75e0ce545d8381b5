"""What every event stream shares (docs/api.md, "Streams"): the message encoding, bounded ids, who
the requester is, the 501 a WSGI server answers, one gate for their reads of the database and one
count of open streams per process (SNAKEPIT_STREAMS_MAX); and the snapshot streams, which send, on
connect and after each change, the whole of what they show (a tournament's tables and standings, a
ladder's leaderboard, the operations figures) rather than a log's events one by one (the match
stream, api/streams.py, does that).

Each snapshot message carries an `id:` naming what it shows (a tournament log's seq, or a digest of
the JSON), so a client that reconnects with `Last-Event-ID` (browsers' EventSource does) or `?after=`
is sent nothing until it changes. A stream waits on its topic (core/feed.py) or reads again every
`feed_poll_seconds()`; the streams of one topic in one process share each read (`SnapshotReads`):
one read per change per process, however many watch. The views are async, as the match stream is:
no thread or database connection is held while a stream waits.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import weakref
from collections import Counter
from collections.abc import Callable
from contextlib import aclosing
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from core.errors import ApplicationError
from core.feed import Subscription, feed_poll_seconds

KEEP_ALIVE_SECONDS = 15.0  # a comment at least this often keeps proxies from closing a quiet stream
RETRY_MILLISECONDS = 1000  # how soon an EventSource reconnects
DIGEST_LENGTH = 16  # hex digits of a digest id: enough that two different snapshots never share one

_open_streams = 0


class StreamRefused(ApplicationError):
    status = 400
    code = "request/invalid_query"


def bounded_number(raw: str | None, *, name: str, digits: int) -> int | None:
    if raw is None or raw == "":
        return None
    raw = raw.strip()
    if not raw.isdigit() or len(raw) > digits:
        raise StreamRefused(f"{name} is a whole number of at most {digits} digits")
    return int(raw)


def message(kind: str, data, *, id: str | int | None = None) -> bytes:
    lines = [f"event: {kind}"]
    if id is not None:
        lines.append(f"id: {id}")
    lines.append("data: " + json.dumps(data, cls=DjangoJSONEncoder, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode()


def digest(data) -> str:
    """A short name for a JSON value, as a message's id where there is no seq to name it."""
    encoded = json.dumps(data, cls=DjangoJSONEncoder, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(encoded.encode()).hexdigest()[:DIGEST_LENGTH]


def last_event_id(request: HttpRequest) -> str | None:
    """What the client already has: the Last-Event-ID header, else `?after=`."""
    return request.META.get("HTTP_LAST_EVENT_ID") or request.GET.get("after") or None


def digest_after(request: HttpRequest) -> str | None:
    """The Last-Event-ID of a stream whose ids are digests: at most DIGEST_LENGTH letters and digits."""
    after = last_event_id(request)
    if after is not None and (len(after) > DIGEST_LENGTH or not after.isalnum()):
        raise StreamRefused(f"Last-Event-ID is an id this stream sent: at most {DIGEST_LENGTH} letters")
    return after


def needs_asgi(request: HttpRequest, poll: str) -> JsonResponse | None:
    """A WSGI server (Django's runserver, a test's live server) would hold a thread for the stream
    and send nothing until it ends: say so at once, and the page polls instead."""
    if isinstance(request, ASGIRequest):
        return None
    body = {"code": "stream/needs_asgi", "detail": f"this server cannot stream; poll {poll} instead"}
    return JsonResponse(body, status=501)


def capacity_check() -> None:
    if _open_streams >= settings.SNAKEPIT_STREAMS_MAX:
        raise ApplicationError(
            "this server has as many streams open as it serves; try again shortly",
            code="stream/too_many",
            status=503,
        )


def request_user(request: HttpRequest):
    """The session's user, or the one an `Authorization: Token ...` header names (401 if it is bad)."""
    if request.META.get("HTTP_AUTHORIZATION"):
        try:
            authenticated = TokenAuthentication().authenticate(request)
        except AuthenticationFailed as failure:
            raise ApplicationError(str(failure.detail), code="auth/failed", status=401) from None
        if authenticated is not None:
            return authenticated[0]
    return request.user


def closing(read: Callable) -> Callable:
    """`read` run in a thread of the loop's pool, leaving no database connection behind: a stream
    holds none while it waits, and the next read, maybe in another thread, makes its own."""

    def run(*args):
        try:
            return read(*args)
        finally:
            connection.close()
            del connections[DEFAULT_DB_ALIAS]

    # Not thread-sensitive: a shared read outlives the stream that began it.
    return sync_to_async(run, thread_sensitive=False)


@dataclass(frozen=True)
class Snapshot:
    """What one read sends, encoded once for every stream that shares it."""

    id: str  # the messages' id: what a client that has them sends back as Last-Event-ID
    messages: bytes
    over: bool  # nothing more will change: the stream ends after these messages


class SnapshotReads:
    """Streams of one source in one process share its reads: a stream joins a read begun after the
    last announcement it heard (so never one begun before a change it was told of) and less than
    `fresh_for` seconds ago (its own poll period: a read no staler than a poll of its own)."""

    def __init__(self) -> None:
        self._flights: dict[tuple, tuple[int, float, asyncio.Future]] = {}
        self._watching: Counter = Counter()

    async def read(self, key: tuple, announced: int, read: Callable, *, fresh_for: float) -> Snapshot:
        flight = self._flights.get(key)
        now = time.monotonic()
        if flight is None or flight[0] < announced or now - flight[1] >= fresh_for:
            future = asyncio.ensure_future(_gated(read))
            flight = self._flights[key] = (announced, now, future)
            future.add_done_callback(lambda done, key=key, flight=flight: self._done(key, flight, done))
        return await asyncio.shield(flight[2])

    def _done(self, key: tuple, flight, future: asyncio.Future) -> None:
        if future.cancelled() or future.exception() is not None:
            self._forget(key, flight)  # a failed read is tried again by the next stream that asks

    def _forget(self, key: tuple, flight) -> None:
        if self._flights.get(key) is flight:
            del self._flights[key]

    def watched(self, key: tuple, change: int) -> None:
        """Count the streams on `key`; the last to leave takes the shared read with it, since
        announcements made while nobody listens are not counted (core/feed.py)."""
        self._watching[key] += change
        if self._watching[key] <= 0:
            del self._watching[key]
            self._flights.pop(key, None)


_reads: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_read_gates: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _per_loop(store: weakref.WeakKeyDictionary, make):
    loop = asyncio.get_running_loop()
    value = store.get(loop)
    if value is None:
        value = store[loop] = make()
    return value


def read_gate() -> asyncio.Semaphore:
    """At most SNAKEPIT_WEB_THREADS reads at once per process, whatever the number and kind of
    streams (the match streams' reads and opening checks pass through it too)."""
    return _per_loop(_read_gates, lambda: asyncio.Semaphore(settings.SNAKEPIT_WEB_THREADS))


async def _gated(read: Callable) -> Snapshot:
    async with read_gate():
        return await read()


async def _counted(body):
    """`body`, counted as an open stream against SNAKEPIT_STREAMS_MAX (`capacity_check`) until it
    ends or its client leaves (Django then closes this, which closes `body`)."""
    global _open_streams
    _open_streams += 1
    try:
        async with aclosing(body):
            async for chunk in body:
                yield chunk
    finally:
        _open_streams -= 1


async def snapshot_events(
    topic: str, *, key: tuple, read: Callable, after: str | None, poll_seconds: float | None = None
):
    """The stream's body: `retry:`, then the snapshot whenever its id differs from the last one the
    client has, until it is over (`event: end`) or SNAKEPIT_STREAM_MAX_SECONDS have passed (the
    client reconnects and resumes). `read` is an async callable returning a `Snapshot`."""
    reads = _per_loop(_reads, SnapshotReads)
    reads.watched(key, +1)
    try:
        yield f"retry: {RETRY_MILLISECONDS}\n\n".encode()
        ends_at = time.monotonic() + settings.SNAKEPIT_STREAM_MAX_SECONDS
        with Subscription(topic) as feed:
            while time.monotonic() < ends_at:
                every = poll_seconds or feed_poll_seconds()
                snapshot = await reads.read(key, feed.announced(), read, fresh_for=every)
                if snapshot.id != after:
                    yield snapshot.messages
                    after = snapshot.id
                if snapshot.over:
                    yield message("end", {"id": snapshot.id}, id=snapshot.id)
                    return
                # Until a change is announced, or it is time to read anyway (an announcement may
                # have been lost), with a comment now and then to keep the connection open.
                look_at = time.monotonic() + every
                while True:
                    timeout = min(KEEP_ALIVE_SECONDS, max(0.0, look_at - time.monotonic()))
                    if await feed.wait(timeout=timeout) or time.monotonic() >= look_at:
                        break
                    yield b": keep-alive\n\n"
    finally:
        reads.watched(key, -1)


def event_stream(body) -> StreamingHttpResponse:
    """The response for a stream's body (an async iterator of bytes), counted while it is open."""
    response = StreamingHttpResponse(_counted(body), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx passes each message on at once
    return response
