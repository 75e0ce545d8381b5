"""Server-Sent Events: a match as it happens (docs/api.md, "Streams").

`GET /api/matches/{id}/stream/` answers `text/event-stream`: every event of the log the viewer may
read, in seq order (`event: event`, `id:` its seq, the same JSON as `/events/`, a withheld payload
null), each batch followed by what the viewer's seat sees now (`event: view`, the JSON of `/view/`),
and `event: end` once the match is over. A client that reconnects sends `Last-Event-ID` (browsers'
EventSource does) or `?after=<seq>`, and the stream goes on from the next seq: what is sent is
decided by seq alone, read from the log through `matches.selectors.match_event_listing`, so a lost
notification (matches/feed.py) delays an event but never skips or repeats one.

The view is async: it waits in the server's event loop with no database connection, and each read
of the log takes a thread and a connection only while it runs (at most SNAKEPIT_WEB_THREADS reads at
once per process), closing the connection after. Every input is bounded: the seat and the seq are
short numbers, a batch is at most STREAM_BATCH events, a process serves at most SNAKEPIT_STREAMS_MAX
streams (503 past that) and a stream lasts at most SNAKEPIT_STREAM_MAX_SECONDS (then the client
reconnects and resumes).
"""

from __future__ import annotations

import asyncio
import json
import time
import weakref
from dataclasses import dataclass
from functools import partial

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.views.decorators.http import require_GET
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from api.matches import EventSerializer, seat_view
from core.errors import ApplicationError
from matches import selectors
from matches.feed import MatchSubscription, feed_poll_seconds
from matches.models import Match

STREAM_BATCH = 200  # events read and sent at once; a longer log is sent in several batches
KEEP_ALIVE_SECONDS = 15.0  # a comment at least this often keeps proxies from closing a quiet stream
RETRY_MILLISECONDS = 1000  # how soon an EventSource reconnects

_open_streams = 0
_read_gates: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class StreamRefused(ApplicationError):
    status = 400
    code = "stream/invalid"


def _bounded_number(raw: str | None, *, name: str, digits: int) -> int | None:
    if raw is None or raw == "":
        return None
    raw = raw.strip()
    if not raw.isdigit() or len(raw) > digits:
        raise StreamRefused(
            f"{name} is a whole number of at most {digits} digits", code="request/invalid_query"
        )
    return int(raw)


def _viewer(request: HttpRequest, match_id: int, requested_seat: int | None) -> tuple[Match, int | None]:
    """The match and the seat whose eyes the requester sees through (None: a spectator's)."""
    user = request.user
    if request.META.get("HTTP_AUTHORIZATION"):
        try:
            authenticated = TokenAuthentication().authenticate(request)
        except AuthenticationFailed as failure:
            raise ApplicationError(str(failure.detail), code="auth/failed", status=401) from None
        if authenticated is not None:
            user = authenticated[0]
    match = selectors.match_get(match_id=match_id)
    return match, selectors.match_viewer_seat(match, user, requested_seat)


@dataclass(frozen=True)
class Batch:
    """What one read of the log sends: the messages, encoded once for every stream that shares it."""

    messages: bytes
    last_seq: int | None  # of the last event in it (None: no new event)
    more: bool  # the log goes on past this batch
    over: bool  # the match is over and this is the end of it


def _read(match_id: int, seat: int | None, after: int) -> Batch:
    """The events after `after` that `seat` may read (a batch at most), then the seat's view once
    they reach the head, then the end once the match is over and all of it is sent."""
    try:
        match = selectors.match_get(match_id=match_id)
        listing = selectors.match_event_listing(match, viewer_seat=seat, after=after)
        events = EventSerializer(listing[:STREAM_BATCH], many=True).data
        more = len(listing) > STREAM_BATCH
        messages = [_message("event", event, seq=event["seq"]) for event in events]
        last_seq = events[-1]["seq"] if events else None
        if events and not more:
            messages.append(_message("view", seat_view(match, seat), seq=last_seq))
        over = not more and match.status != Match.Status.RUNNING
        if over:
            messages.append(_message("end", {"seq": last_seq or after}, seq=last_seq or after))
        return Batch(b"".join(messages), last_seq, more, over)
    finally:
        # A stream holds no connection while it waits; and the next read, maybe in another of the
        # pool's threads, makes its own connection object (Django's may not cross threads).
        connection.close()
        del connections[DEFAULT_DB_ALIAS]


class SharedReads:
    """Streams that would read the same thing at once read it once: the spectators of a match, woken
    by one append, share one read of the log after the same seq (and their seats' viewers theirs).
    A stream joins only a read begun after the announcement it heard (`announced`), so a read begun
    before an append never stands in for one after it."""

    def __init__(self) -> None:
        self._flights: dict[tuple, tuple[int, asyncio.Future]] = {}

    async def read(self, key: tuple, announced: int, read):
        flight = self._flights.get(key)
        if flight is None or flight[0] < announced:
            future = asyncio.ensure_future(read())
            flight = self._flights[key] = (announced, future)
            future.add_done_callback(lambda _, key=key, flight=flight: self._forget(key, flight))
        return await asyncio.shield(flight[1])

    def _forget(self, key: tuple, flight) -> None:
        if self._flights.get(key) is flight:
            del self._flights[key]


_shared_reads: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _shared() -> SharedReads:
    loop = asyncio.get_running_loop()
    shared = _shared_reads.get(loop)
    if shared is None:
        shared = _shared_reads[loop] = SharedReads()
    return shared


def _read_gate() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    gate = _read_gates.get(loop)
    if gate is None:
        gate = _read_gates[loop] = asyncio.Semaphore(settings.SNAKEPIT_WEB_THREADS)
    return gate


async def _gated_read(match_id: int, seat: int | None, after: int):
    async with _read_gate():
        # Not thread-sensitive: a shared read outlives the stream that began it, so it runs in the
        # loop's pool, and `_read` leaves no connection behind in that thread.
        return await sync_to_async(_read, thread_sensitive=False)(match_id, seat, after)


def _message(kind: str, data, *, seq: int | None = None) -> bytes:
    lines = [f"event: {kind}"]
    if seq is not None:
        lines.append(f"id: {seq}")
    lines.append("data: " + json.dumps(data, cls=DjangoJSONEncoder, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode()


async def _events(match_id: int, seat: int | None, after: int):
    global _open_streams
    _open_streams += 1
    try:
        yield f"retry: {RETRY_MILLISECONDS}\n\n".encode()
        ends_at = time.monotonic() + settings.SNAKEPIT_STREAM_MAX_SECONDS
        with MatchSubscription(match_id) as feed:
            while time.monotonic() < ends_at:
                batch = await _shared().read(
                    (match_id, seat, after), feed.announced(), partial(_gated_read, match_id, seat, after)
                )
                if batch.messages:
                    yield batch.messages
                after = batch.last_seq or after
                if batch.over:
                    return
                if batch.more:
                    continue  # more of the log to send at once
                # Until an append is announced, or it is time to look at the log anyway (an
                # announcement may have been lost), with a comment now and then to keep it open.
                look_at = time.monotonic() + feed_poll_seconds()
                while True:
                    timeout = min(KEEP_ALIVE_SECONDS, max(0.0, look_at - time.monotonic()))
                    if await feed.wait(timeout=timeout) or time.monotonic() >= look_at:
                        break
                    yield b": keep-alive\n\n"
    finally:
        _open_streams -= 1


@require_GET
async def match_stream(request: HttpRequest, pk: int):
    """The match's events and the requester's view as they happen (text/event-stream)."""
    if not isinstance(request, ASGIRequest):
        # A WSGI server (Django's runserver, a test's live server) would hold a thread for the
        # stream and send nothing until it ends: say so at once, and the page polls instead.
        body = {"code": "stream/needs_asgi", "detail": "this server cannot stream; poll /events/ instead"}
        return JsonResponse(body, status=501)
    try:
        seat = _bounded_number(request.GET.get("seat"), name="seat", digits=3)
        after = _bounded_number(request.META.get("HTTP_LAST_EVENT_ID"), name="Last-Event-ID", digits=10)
        if after is None:
            after = _bounded_number(request.GET.get("after"), name="after", digits=10) or 0
        if _open_streams >= settings.SNAKEPIT_STREAMS_MAX:
            raise ApplicationError(
                "this server has as many streams open as it serves; try again shortly",
                code="stream/too_many",
                status=503,
            )
        _, seat = await sync_to_async(_viewer_closing)(request, pk, seat)
    except ApplicationError as error:
        return JsonResponse(error.as_body(), status=error.status)
    response = StreamingHttpResponse(_events(pk, seat, after), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx passes each message on at once
    return response


def _viewer_closing(request: HttpRequest, match_id: int, requested_seat: int | None):
    try:
        return _viewer(request, match_id, requested_seat)
    finally:
        connection.close()
