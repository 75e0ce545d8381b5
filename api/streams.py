"""Server-Sent Events: a match as it happens (docs/api.md, "Streams").

`GET /api/matches/{id}/stream/` answers `text/event-stream`: every event of the log the viewer may
read, in seq order (`event: event`, `id:` its seq, the same JSON as `/events/`, a withheld payload
null), each batch followed by what the viewer's seat sees now (`event: view`, the JSON of `/view/`),
and `event: end` once the match is over. A client that reconnects sends `Last-Event-ID` (browsers'
EventSource does) or `?after=<seq>`, and the stream goes on from the next seq: what is sent is
decided by seq alone, read from the log through `matches.selectors.match_event_listing`, so a lost
notification (matches/feed.py) delays an event but never skips or repeats one.

How the messages reach many streams at once (docs/api.md, "Streams"): the streams of one match in a
web process share one `MatchHub`, which hears the match's announcements (matches/feed.py), reads
the new events once with their audiences, encodes each once per listening seat (the payload as that
seat may read it, its sentence from that seat's side; every spectator shares one) and each seat's
view once, and hands every stream the same prepared delivery; a stream takes its seat's messages.
A stream joining, or one whose client reads too slowly to keep up (`LISTENER_BACKLOG` deliveries),
reads the log itself from the last seq it sent (`_read`, shared between streams that would read the
same thing), then follows the hub again, dropping what it already sent: the seq decides, as everywhere here.

The view is async: it waits in the server's event loop with no database connection, and each read
of the log takes a thread and a connection only while it runs (at most SNAKEPIT_WEB_THREADS reads at
once per process, the opening checks of a stream included), closing the connection after. Every
input is bounded: the seat and the seq are short numbers, a batch is at most STREAM_BATCH events, a
process serves at most SNAKEPIT_STREAMS_MAX streams (503 past that) and a stream lasts at most
SNAKEPIT_STREAM_MAX_SECONDS (then the client reconnects and resumes).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from dataclasses import dataclass
from functools import partial

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from api.matches import EventSerializer, seat_view
from api.sse import (
    KEEP_ALIVE_SECONDS,
    RETRY_MILLISECONDS,
    bounded_number,
    capacity_check,
    closing,
    event_stream,
    message,
    needs_asgi,
    read_gate,
    request_user,
)
from core.errors import ApplicationError
from matches import selectors
from matches.feed import MatchSubscription, feed_poll_seconds
from matches.models import Match

logger = logging.getLogger(__name__)

STREAM_BATCH = 200  # events read and sent at once; a longer log is sent in several batches
LISTENER_BACKLOG = 32  # deliveries a stream may have waiting before it reads the log itself instead


def _viewer_seat(request: HttpRequest, match_id: int, requested_seat: int | None) -> int | None:
    """The seat whose eyes the requester sees through (None: a spectator's)."""
    match = selectors.match_get(match_id=match_id)
    return selectors.match_viewer_seat(match, request_user(request), requested_seat)


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
    match = selectors.match_get(match_id=match_id)
    logged = selectors.match_events_after(match, after=after, limit=STREAM_BATCH + 1)
    more = len(logged) > STREAM_BATCH
    finished = match.is_finished
    listing = [_seen(event, seat, finished) for event in logged]
    events = EventSerializer(listing[:STREAM_BATCH], many=True).data
    messages = [message("event", event, id=event["seq"]) for event in events]
    last_seq = events[-1]["seq"] if events else None
    if events and not more:
        messages.append(message("view", seat_view(match, seat), id=last_seq))
    over = not more and match.status != Match.Status.RUNNING
    if over:
        messages.append(message("end", {"seq": last_seq or after}, id=last_seq or after))
    return Batch(b"".join(messages), last_seq, more, over)


class SharedReads:
    """Streams that would read the same thing at once read it once: streams of one seat that sent
    the same seq, reading the log to catch up (joining, or fallen behind), share one read and its
    encoded messages. A stream joins only a read begun no earlier than it asks (`not_before`, a
    `time.monotonic()`): no earlier than its hub last handed events on, so that such a read holds
    everything the hub has handed on, and the read and the hub leave no gap between them."""

    def __init__(self) -> None:
        self._flights: dict[tuple, tuple[float, asyncio.Future]] = {}

    async def read(self, key: tuple, not_before: float, read):
        flight = self._flights.get(key)
        if flight is None or flight[0] < not_before:
            future = asyncio.ensure_future(read())
            flight = self._flights[key] = (time.monotonic(), future)
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


async def _gated(read, *args):
    """`read(*args)` in the loop's pool, through the read gate all streams share, leaving no
    database connection behind (api/sse.py)."""
    async with read_gate():
        return await closing(read)(*args)


@dataclass
class Delivery:
    """What a hub read after its last seq: the new events, each encoded in the forms its audience
    calls for, each listening seat's view at the head, and whether the match is over. A stream cuts
    its messages from it (`messages_for`); streams of the same seat that sent the same seq share the
    cut."""

    # Each event with its message for each listening seat (None: spectators): the payload as that
    # seat may read it, the sentence from its side.
    events: list[tuple[selectors.LoggedEvent, dict[int | None, bytes]]]
    views: dict[int | None, bytes]
    finished: bool
    last_seq: int
    _cuts: dict[tuple[int | None, int], bytes]

    def messages_for(self, seat: int | None, sent: int) -> bytes | None:
        """The messages for a stream of `seat` that has sent everything up to seq `sent`, or None when
        it cannot follow from this delivery (its seat's view is missing, or events between are)."""
        cut = self._cuts.get((seat, sent))
        if cut is not None:
            return cut
        fresh = [event for event in self.events if event[0].seq > sent]
        if (fresh and fresh[0][0].seq != sent + 1) or (fresh and seat not in self.views):
            return None
        parts = [encoded[seat] for _event, encoded in fresh]
        if fresh:
            parts.append(self.views[seat])
        if self.finished:
            parts.append(message("end", {"seq": max(sent, self.last_seq)}, id=max(sent, self.last_seq)))
        cut = self._cuts[(seat, sent)] = b"".join(parts)
        return cut


def _hub_read(match_id: int, after: int, seats: frozenset[int | None]) -> Delivery:
    """One read for every stream of the match: the events after `after` (a batch at most), encoded
    once per form, and each listening seat's view once, if there were any."""
    match = selectors.match_get(match_id=match_id)
    logged = selectors.match_events_after(match, after=after, limit=STREAM_BATCH)
    finished = match.status != Match.Status.RUNNING
    events = [
        (
            event,
            {
                seat: message("event", _serialized(_seen(event, seat, finished)), id=event.seq)
                for seat in seats
            },
        )
        for event in logged
    ]
    last_seq = logged[-1].seq if logged else after
    views = {}
    if logged:
        views = {seat: message("view", seat_view(match, seat), id=last_seq) for seat in seats}
    finished = finished and len(logged) < STREAM_BATCH
    return Delivery(events, views, finished, last_seq, {})


def _seen(event: selectors.LoggedEvent, seat: int | None, finished: bool) -> dict:
    return event.as_seen(visible=event.visible_to(seat, finished=finished), viewer_seat=seat)


def _serialized(event: dict) -> dict:
    return EventSerializer(event).data


KEEP_ALIVE = object()  # a hub's word to its streams that nothing happened for a while
FELL_BEHIND = object()  # a stream's backlog overflowed: it reads the log itself


class MatchListener:
    """One stream's place at its match's hub: the deliveries it has yet to send."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.deliveries: asyncio.Queue = asyncio.Queue()

    def hand(self, delivery) -> None:
        if self.deliveries.qsize() >= LISTENER_BACKLOG:
            # A client reading slower than the match moves: drop what is queued and let it read
            # the log from its last seq once it catches up, rather than hold every delivery.
            while not self.deliveries.empty():
                self.deliveries.get_nowait()
            delivery = FELL_BEHIND
        self.deliveries.put_nowait(delivery)


class MatchHub:
    """The one reader of a match's new events for every stream of it in this event loop."""

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self.listeners: set[MatchListener] = set()
        self.head: int | None = None  # the last seq read; the streams are handed everything after it
        self.ready = asyncio.Event()
        # When it last handed its streams new events: a read of the log begun after that is as
        # new as anything the hub has handed on, so a stream joining now may share it.
        self.handed_at = 0.0
        self._task: asyncio.Task | None = None

    def join(self, listener: MatchListener) -> None:
        self.listeners.add(listener)
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._follow())

    def leave(self, listener: MatchListener) -> bool:
        """Whether the hub is left with no stream (and has stopped)."""
        self.listeners.discard(listener)
        if self.listeners:
            return False
        if self._task is not None:
            self._task.cancel()
        return True

    async def _follow(self) -> None:
        quiet_since = time.monotonic()
        with MatchSubscription(self.match_id) as feed:
            while self.head is None:
                try:
                    self.head = await _gated(_head_seq, self.match_id)
                except Exception:  # noqa: BLE001  the database is away: the streams wait, and we retry
                    logger.exception("the stream hub of match %s could not read its head", self.match_id)
                    await asyncio.sleep(1.0)
            self.ready.set()
            more = False
            while True:
                if not more:
                    # Until an append is announced, or it is time to look at the log anyway (an
                    # announcement may have been lost).
                    await feed.wait(timeout=min(feed_poll_seconds(), KEEP_ALIVE_SECONDS))
                seats = frozenset(listener.seat for listener in self.listeners)
                try:
                    delivery = await _gated(_hub_read, self.match_id, self.head, seats)
                except Exception:  # noqa: BLE001
                    logger.exception("the stream hub of match %s could not read the log", self.match_id)
                    await asyncio.sleep(1.0)
                    continue
                if delivery.events or delivery.finished:
                    self.head = delivery.last_seq
                    self._hand(delivery)
                    quiet_since = time.monotonic()
                    if delivery.finished:
                        return
                more = len(delivery.events) == STREAM_BATCH  # the log goes on: read on at once
                if not delivery.events and time.monotonic() - quiet_since >= KEEP_ALIVE_SECONDS:
                    self._hand(KEEP_ALIVE)
                    quiet_since = time.monotonic()

    def _hand(self, delivery) -> None:
        if delivery is not KEEP_ALIVE:
            self.handed_at = time.monotonic()
        for listener in list(self.listeners):
            listener.hand(delivery)


def _head_seq(match_id: int) -> int:
    return selectors.match_head_seq(selectors.match_get(match_id=match_id))


_hubs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _hub_joined(match_id: int, listener: MatchListener) -> MatchHub:
    hubs = _hubs.setdefault(asyncio.get_running_loop(), {})
    hub = hubs.get(match_id)
    if hub is None:
        hub = hubs[match_id] = MatchHub(match_id)
    hub.join(listener)
    return hub


def _hub_left(hub: MatchHub, listener: MatchListener) -> None:
    if hub.leave(listener):
        hubs = _hubs.get(asyncio.get_running_loop(), {})
        if hubs.get(hub.match_id) is hub:
            del hubs[hub.match_id]


async def _events(match_id: int, seat: int | None, after: int):
    listener = MatchListener(seat)
    hub = _hub_joined(match_id, listener)
    try:
        yield f"retry: {RETRY_MILLISECONDS}\n\n".encode()
        ends_at = time.monotonic() + settings.SNAKEPIT_STREAM_MAX_SECONDS
        # Joined before the first read of the log and after the hub knows its head, so that
        # whatever the hub hands on was appended after a point this read of the log reaches.
        await hub.ready.wait()
        from_log, not_before = True, hub.handed_at
        while time.monotonic() < ends_at:
            if from_log:
                batch = await _shared().read(
                    (match_id, seat, after), not_before, partial(_gated, _read, match_id, seat, after)
                )
                if batch.messages:
                    yield batch.messages
                after = batch.last_seq or after
                if batch.over:
                    return
                from_log = batch.more
                continue
            delivery = await listener.deliveries.get()
            if delivery is KEEP_ALIVE:
                yield b": keep-alive\n\n"
                continue
            messages = None if delivery is FELL_BEHIND else delivery.messages_for(seat, after)
            if messages is None:
                from_log, not_before = True, hub.handed_at
                continue
            if messages:
                yield messages
            after = max(after, delivery.last_seq)
            if delivery.finished:
                return
    finally:
        _hub_left(hub, listener)


@require_GET
async def match_stream(request: HttpRequest, pk: int):
    """The match's events and the requester's view as they happen (text/event-stream)."""
    refusal = needs_asgi(request, "/events/")
    if refusal is not None:
        return refusal
    try:
        seat = bounded_number(request.GET.get("seat"), name="seat", digits=3)
        after = bounded_number(request.META.get("HTTP_LAST_EVENT_ID"), name="Last-Event-ID", digits=10)
        if after is None:
            after = bounded_number(request.GET.get("after"), name="after", digits=10) or 0
        capacity_check()
        # Through the same gate as the reads of the log: a thousand streams opened at once must not
        # each take a database connection (PostgreSQL refuses past max_connections).
        seat = await _gated(_viewer_seat, request, pk, seat)
    except ApplicationError as error:
        return JsonResponse(error.as_body(), status=error.status)
    return event_stream(_events(pk, seat, after))
