"""Match pages: the list, and a match's replay viewer (a spectator's view at each step, every seat's
view once the match is over), its seed check, and its live refresh."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse

from core.errors import ApplicationError, NotFound
from engines.fairness import Verification
from matches.models import Match
from matches.selectors import (
    match_events_after,
    match_game,
    match_get,
    match_head_seq,
    match_list,
    match_verify,
)
from snakepit.pages.common import paginate, render_page, row_id
from snakepit.pages.rendering import view_html

EVENT_PAYLOAD_CHARS = 300  # an event's payload is shown as JSON cut to this length in the log
REPLAY_CACHE_SECONDS = 300
EVENT_LOG_ROWS = 200  # the log beside the replay lists the last this many events up to the step


def match_list_page(request: HttpRequest) -> HttpResponse:
    matches = match_list()
    game = request.GET.get("game", "")[:40]
    if game:
        matches = matches.filter(game=game)
    status = request.GET.get("status", "")
    if status in Match.Status.values:
        matches = matches.filter(status=status)
    else:
        status = ""
    return render_page(
        request,
        page="pages/match_list.html",
        context={
            "section": "matches",
            "page_obj": paginate(request, matches),
            "game": game,
            "status": status,
        },
    )


@dataclass(frozen=True)
class ReplayStep:
    """The match as a spectator saw it after `step` events (and every seat's view once it is over)."""

    step: int
    head: int
    spectator_view: dict[str, Any]
    seat_views: list[tuple[str, dict[str, Any]]]  # (seat label, view): filled only for a finished match
    decision: dict[str, Any]
    events: list[dict[str, Any]]  # the last EVENT_LOG_ROWS of the log up to the step


def replay_step_cached(match: Match, *, step: int) -> ReplayStep:
    """`replay_step`, kept for a while under the log's head: every spectator polling a live match
    gets the same step from one replay, and a new event makes a new key."""
    head = match_head_seq(match)
    step = min(max(step, 0), head)
    # The commitment is the match's own: a key never outlives a database reset into another match.
    key = f"pages:replay:{match.pk}:{match.seed_commitment[:16]}:{match.status}:{head}:{step}"
    found = cache.get(key)
    if found is None:
        found = replay_step(match, step=step, head=head)
        cache.set(key, found, REPLAY_CACHE_SECONDS)
    return found


def replay_step(match: Match, *, step: int, head: int | None = None) -> ReplayStep:
    """Rebuild the match to `step` (clamped to the log up to `head`, else all of it) from its set-up
    and log. While the match runs only the spectator's view is computed and the log's secret payloads
    stay withheld."""
    rows = list(
        match.events.order_by("seq") if head is None else match.events.filter(seq__lte=head).order_by("seq")
    )
    head = rows[-1].seq if rows else 0
    step = min(max(step, 0), head)
    game = match_game(match)
    seats = list(match.seats.select_related("user").order_by("index"))
    state = game.new_state(seats=len(seats), options=match.options)
    finished = match.is_finished
    shown = {
        event.seq: event
        for event in match_events_after(match, after=max(step - EVENT_LOG_ROWS, 0), limit=EVENT_LOG_ROWS)
    }
    events = []
    for row in rows:
        if row.seq > step:
            break
        logged = shown.get(row.seq)
        if logged is not None:
            # Told here, with the state just before the event at hand (the listings have none), so
            # a game may name what only the board knows ("to THIEF" rather than "to space 7").
            seen = logged.as_seen(visible=logged.visible_to(None, finished=finished))
            seen["describe"] = logged.describe(
                seen["payload"], viewer_seat=None, state_before=state if row.is_engine_event else None
            )
            seen["payload_text"] = "" if seen["redacted"] else _payload_text(seen["payload"])
            events.append(seen)
        if row.is_engine_event:  # the store's own events (entropy, void, correction) are no moves
            game.apply(state, row.to_engine())
    seat_views = []
    if finished:
        seat_views = [(seat.label, game.view(state, seat.index)) for seat in seats]
    return ReplayStep(
        step=step,
        head=head,
        spectator_view=game.view(state, None),
        seat_views=seat_views,
        decision=game.decision(state).to_json(),
        events=events,
    )


def _without_you(view: dict[str, Any]) -> dict[str, Any]:
    """A view less its `you` (the seat it was made for), to tell whether a seat saw more than a spectator."""
    return {key: value for key, value in view.items() if key != "you"}


def _payload_text(payload: Any) -> str:
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= EVENT_PAYLOAD_CHARS else text[: EVENT_PAYLOAD_CHARS - 1] + "…"


def _match_or_404(match_id: int) -> Match:
    try:
        return match_get(match_id=row_id(match_id))
    except NotFound:
        raise Http404(f"no match {match_id}") from None


def _requested_step(request: HttpRequest) -> int | None:
    raw = request.GET.get("step", "")
    if not raw:
        return None
    try:
        return int(raw[:12])
    except ValueError:
        return None


def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _match_or_404(match_id)
    requested = _requested_step(request)
    following = requested is None
    replay = replay_step_cached(match, step=10**9 if following else requested)
    seats = list(match.seats.select_related("user").order_by("index"))
    url = reverse("pages:match-detail", args=[match.pk])
    context = {
        "section": "matches",
        "match": match,
        "seats": seats,
        # A seated person may play from here (pages:play); everyone else watches.
        "is_seated": request.user.is_authenticated and any(seat.user_id == request.user.pk for seat in seats),
        "replay": replay,
        "following": following or (replay.step == replay.head),
        "spectator_html": view_html(replay.spectator_view),
        "seat_views_html": [
            (label, view_html(view), _without_you(view) == _without_you(replay.spectator_view))
            for label, view in replay.seat_views
        ],
        "first_url": f"{url}?step=0",
        "back_url": f"{url}?step={max(replay.step - 1, 0)}",
        "forward_url": f"{url}?step={min(replay.step + 1, replay.head)}",
        "last_url": url,
        "live_url": url,
        # A running match's page follows its event stream (api/streams.py) from the head it was drawn at.
        "stream_url": reverse("match-stream", args=[match.pk]) + f"?after={replay.head}",
        # A missing reverse one-to-one raises a subclass of AttributeError, so getattr's default holds.
        "tournament_match": getattr(match, "tournament_match", None),
        "ladder_match": getattr(match, "ladder_match", None),
    }
    return render_page(
        request, page="pages/match_detail.html", fragment="pages/_replay.html", context=context
    )


def match_verify_page(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _match_or_404(match_id)
    verification: Verification | None = None
    refusal = ""
    try:
        verification = match_verify(match)
    except ApplicationError as error:
        refusal = error.detail
    return render_page(
        request,
        page="pages/match_verify.html",
        fragment="pages/_verify.html",
        context={"section": "matches", "match": match, "verification": verification, "refusal": refusal},
        status=200 if verification else 409,
    )
