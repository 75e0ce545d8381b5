"""Server-Sent Events: a tournament's tables and standings, and a ladder's leaderboard, as they change
(docs/api.md, "Streams"; what they share is in api/sse.py).

`GET /api/tournaments/{slug}/stream/` sends `event: tournament` (`id:` the tournament log's seq) on
connect and after each append: the current round's tables, the standings and the bracket, the same
JSON as `/tables/?round=<current>`, `/standings/` and `/bracket/` (null where there is none). None of
it depends on who asks (the API's GETs show everyone the same), so every stream of one tournament
shares one read per change. `event: end` follows once the tournament is finished or cancelled.

`GET /api/ladders/{slug}/stream/` sends `event: leaderboard` (`id:` a digest of it): the first page
of `/leaderboard/` (`include_left` and `include_inactive` as there) whenever it changes.
"""

from __future__ import annotations

from functools import partial

from django.conf import settings
from django.db.models import Max
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from api.ratings import leaderboard_rows
from api.sse import (
    Snapshot,
    StreamRefused,
    bounded_number,
    capacity_check,
    closing,
    digest,
    digest_after,
    event_stream,
    last_event_id,
    message,
    needs_asgi,
    snapshot_events,
)
from api.tournaments import tournament_standing_rows, tournament_table_rows
from core.errors import ApplicationError, NotFound
from ratings import selectors as ladder_selectors
from ratings.feed import ladder_topic
from ratings.models import Ladder
from tournaments import selectors as tournament_selectors
from tournaments.feed import tournament_topic
from tournaments.formats import lifecycle
from tournaments.models import Tournament

SLUG_LENGTH = 100  # longer than any slug given out: a longer one names nothing


def _slug_checked(slug: str, *, code: str, what: str) -> str:
    if len(slug) > SLUG_LENGTH:
        raise NotFound(f"no {what} {slug[:SLUG_LENGTH]!r}…", code=code)
    return slug


# --- tournaments ----------------------------------------------------------------------------------


def _tournament_id(slug: str) -> int:
    _slug_checked(slug, code="tournament/not_found", what="tournament")
    return tournament_selectors.tournament_get(slug=slug).pk


def tournament_snapshot(tournament_id: int) -> Snapshot:
    """The tournament as its stream sends it: the log's seq first, so what is read after it is at
    least that new (a later append is announced and read again)."""
    tournament = Tournament.objects.get(pk=tournament_id)
    head = tournament_selectors.tournament_head(tournament)
    tournament.refresh_from_db(fields=["status"])  # as of the seq or later, as the rest
    current = tournament.tables.aggregate(current=Max("round"))["current"]
    data = {
        "seq": head.seq,
        "status": tournament.status,
        "round": current,
        "tables": [] if current is None else tournament_table_rows(tournament, round_number=current),
        "standings": tournament_standing_rows(tournament),
        "bracket": lifecycle.bracket(head.state),
    }
    over = tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
    return Snapshot(str(head.seq), message("tournament", data, id=head.seq), over)


@require_GET
async def tournament_stream(request: HttpRequest, slug: str):
    """The tournament's tables, standings and bracket after each change (text/event-stream)."""
    refused = needs_asgi(request, f"/api/tournaments/{slug[:SLUG_LENGTH]}/tables/")
    if refused is not None:
        return refused
    try:
        after = bounded_number(last_event_id(request), name="Last-Event-ID", digits=10)
        capacity_check()
        tournament_id = await closing(_tournament_id)(slug)
    except ApplicationError as error:
        return JsonResponse(error.as_body(), status=error.status)
    topic = tournament_topic(tournament_id)
    body = snapshot_events(
        topic,
        key=(topic,),
        read=partial(closing(tournament_snapshot), tournament_id),
        after=None if after is None else str(after),
    )
    return event_stream(body)


# --- ladders --------------------------------------------------------------------------------------


def _ladder_id(slug: str) -> int:
    _slug_checked(slug, code="ladder/not_found", what="ladder")
    try:
        return Ladder.objects.only("pk").get(slug=slug).pk
    except Ladder.DoesNotExist:
        raise NotFound(f"no ladder {slug!r}", code="ladder/not_found") from None


def ladder_snapshot(ladder_id: int, include_left: bool, include_inactive: bool) -> Snapshot:
    ladder = Ladder.objects.get(pk=ladder_id)
    entries = ladder_selectors.entries_ranked(
        ladder=ladder, include_left=include_left, include_inactive=include_inactive
    )
    page = list(entries[: settings.REST_FRAMEWORK["PAGE_SIZE"]])
    data = {"count": entries.count(), "results": leaderboard_rows(ladder, page, first=1)}
    name = digest(data)
    return Snapshot(name, message("leaderboard", data, id=name), over=False)


def _flag(request: HttpRequest, name: str) -> bool:
    """As the leaderboard reads its flags: "true" or "false"."""
    value = request.GET.get(name, "false")
    if value not in ("true", "false"):
        raise StreamRefused(f"{name} is true or false")
    return value == "true"


@require_GET
async def ladder_stream(request: HttpRequest, slug: str):
    """The ladder's leaderboard whenever it changes (text/event-stream)."""
    refused = needs_asgi(request, f"/api/ladders/{slug[:SLUG_LENGTH]}/leaderboard/")
    if refused is not None:
        return refused
    try:
        after = digest_after(request)
        include_left, include_inactive = _flag(request, "include_left"), _flag(request, "include_inactive")
        capacity_check()
        ladder_id = await closing(_ladder_id)(slug)
    except ApplicationError as error:
        return JsonResponse(error.as_body(), status=error.status)
    topic = ladder_topic(ladder_id)
    body = snapshot_events(
        topic,
        key=(topic, include_left, include_inactive),
        read=partial(closing(ladder_snapshot), ladder_id, include_left, include_inactive),
        after=after,
    )
    return event_stream(body)
