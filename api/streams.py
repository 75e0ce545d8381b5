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

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.views.decorators.http import require_GET
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from api.matches import EventSerializer, _seat_view
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


def _read(match_id: int, seat: int | None, after: int) -> tuple[list[dict], dict | None, bool]:
    """The events after `after` that `seat` may read (a batch at most), the seat's view once they
    reach the head, and whether the match is over and all of it sent."""
    try:
        match = selectors.match_get(match_id=match_id)
        listing = selectors.match_event_listing(match, viewer_seat=seat, after=after)
        events = EventSerializer(listing[:STREAM_BATCH], many=True).data
        caught_up = len(listing) <= STREAM_BATCH
        view = _seat_view(match, seat) if events and caught_up else None
        return list(events), view, caught_up and match.status != Match.Status.RUNNING
    finally:
        connection.close()  # a stream holds no connection while it waits


def _read_gate() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    gate = _read_gates.get(loop)
    if gate is None:
        gate = _read_gates[loop] = asyncio.Semaphore(settings.SNAKEPIT_WEB_THREADS)
    return gate


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
                async with _read_gate():
                    events, view, over = await sync_to_async(_read)(match_id, seat, after)
                for event in events:
                    yield _message("event", event, seq=event["seq"])
                    after = event["seq"]
                if view is not None:
                    yield _message("view", view, seq=after)
                if over:
                    yield _message("end", {"seq": after}, seq=after)
                    return
                if events and view is None:
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
