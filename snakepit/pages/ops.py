"""The operations page (staff only): what the workers are doing, and the few things staff may do about it.

Reads: matches in progress and the stalled ones (chance or a bot to move and nothing appended for
SNAKEPIT_STALLED_AFTER_SECONDS: `matches.selectors.matches_stalled`, what the beat sweep resumes),
the Celery queue's depth (the Redis list's length, or the filesystem broker's message files), failed
tasks and the last read-model checks (snakepit/pages/ops_records.py), bot forfeits by reason, and
events appended and ratings applied per minute. Actions go through the apps' services, as the API's
would: pause or resume a ladder (`ratings.services.ladder_pause`), void a match (`matches.services.
match_void`: a `void` event, never a deletion), and queue the rebuild checks on a worker.
"""

from __future__ import annotations

from datetime import timedelta
from functools import wraps
from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db.models import Count, F, Max
from django.db.models.functions import TruncMinute
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from api.limits import INT_MAX
from api.sse import (
    Snapshot,
    capacity_check,
    closing,
    digest,
    digest_after,
    event_stream,
    message,
    needs_asgi,
    request_user,
    snapshot_events,
)
from core.errors import ApplicationError, Forbidden
from matches.models import Match, MatchEvent
from matches.selectors import matches_stalled
from matches.services import match_void
from ratings.models import Ladder, LadderMatch, RatedMatch
from ratings.services import ladder_pause, ladder_resume
from snakepit.celery import app as celery_app
from snakepit.pages.common import render_page
from snakepit.pages.ops_records import (
    CHECKS,
    check_queued_record,
    check_results,
    checks_queued,
    ops_checks_run,
    task_failures,
)

RUNNING_SHOWN = 50
OVERDUE_CHECKED = 1000  # running ladder matches read for their deadlines, oldest first
RATE_WINDOWS = (1, 5, 15, 60)  # minutes
SERIES_MINUTES = 15
# The figures are read again this often for the ops stream (once per process, however many staff
# watch); nothing announces them, since nearly every write in the service changes one.
OPS_STREAM_SECONDS = 5.0
OPS_TOPIC = "ops"


def staff_only(view):
    """Anonymous: to the sign-in page. Signed in without the staff flag: a 403 page, nothing shown."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            return render(request, "ops/refused.html", {"section": "ops"}, status=403)
        return view(request, *args, **kwargs)

    return wrapped


# --- reads ----------------------------------------------------------------------------------------


def queue_depth() -> dict[str, Any]:
    """Messages waiting in the broker for a worker, by queue, and how the number was read."""
    queue = celery_app.conf.task_default_queue or "celery"
    url = settings.CELERY_BROKER_URL
    try:
        if url.startswith("filesystem://"):
            folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
            waiting = sum(1 for entry in folder.iterdir() if entry.is_file())
            return {"source": f"files in {folder}", "queues": {queue: waiting}, "unacked": None, "error": ""}
        if url.startswith(("redis://", "rediss://")):
            import redis

            client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
            # kombu keeps a queue as one list per priority step: the plain name, then
            # name + "\x06\x16" + step.
            names = [queue] + [f"{queue}\x06\x16{step}" for step in range(1, 10)]
            waiting = sum(client.llen(name) for name in names)
            return {
                "source": "Redis list length",
                "queues": {queue: waiting},
                "unacked": client.hlen("unacked"),
                "error": "",
            }
    except Exception as error:  # noqa: BLE001 - the page says the broker is unreachable rather than fail
        return {
            "source": url.split("://", 1)[0],
            "queues": {},
            "unacked": None,
            "error": f"{type(error).__name__}: {error}",
        }
    return {
        "source": url.split("://", 1)[0],
        "queues": {},
        "unacked": None,
        "error": "this broker's depth is not read",
    }


def per_minute(queryset, field: str, *, now) -> dict[str, Any]:
    """How many rows `field` dates in each recent window, as a rate per minute, and a minute-by-minute
    series of the last SERIES_MINUTES."""
    longest = now - timedelta(minutes=max(RATE_WINDOWS))
    recent = queryset.filter(**{f"{field}__gte": longest})
    windows = []
    for minutes in RATE_WINDOWS:
        count = recent.filter(**{f"{field}__gte": now - timedelta(minutes=minutes)}).count()
        windows.append({"minutes": minutes, "count": count, "rate": round(count / minutes, 1)})
    start = (now - timedelta(minutes=SERIES_MINUTES - 1)).replace(second=0, microsecond=0)
    counted = dict(
        recent.filter(**{f"{field}__gte": start})
        .annotate(minute=TruncMinute(field))
        .values_list("minute")
        .annotate(count=Count("pk"))
        .values_list("minute", "count")
    )
    counted = {minute.replace(second=0, microsecond=0): count for minute, count in counted.items()}
    series = []
    for step in range(SERIES_MINUTES):
        minute = start + timedelta(minutes=step)
        series.append({"minute": minute, "count": counted.get(minute, 0)})
    peak = max((point["count"] for point in series), default=0) or 1
    for step, point in enumerate(series):  # bars of a 150 x 40 sparkline, tallest minute full height
        point["x"] = step * 10
        point["height"] = round(40 * point["count"] / peak, 1)
        point["y"] = round(40 - point["height"], 1)
    return {"windows": windows, "series": series}


def bot_forfeits_by_reason() -> list[dict[str, Any]]:
    """Forfeits written for a bot's seat (a broken rule, a timeout), counted by their reason."""
    rows = (
        # One filter(), so the seat joined is the forfeiting one and it must be a bot's.
        MatchEvent.objects.filter(
            kind=MatchEvent.Kind.FORFEIT, match__seats__index=F("seat"), match__seats__bot__gt=""
        )
        .values("payload__reason")
        .annotate(count=Count("pk"))
        .order_by("-count")
    )
    return [{"reason": row["payload__reason"] or "(none given)", "count": row["count"]} for row in rows[:50]]


def matches_in_progress(*, now) -> dict[str, Any]:
    stalled_after = timedelta(seconds=settings.SNAKEPIT_STALLED_AFTER_SECONDS)
    stalled = set(matches_stalled(stalled_after=stalled_after, now=now))
    running = Match.objects.filter(status=Match.Status.RUNNING)
    rows = (
        running.annotate(last_event_at=Max("events__created_at"), seq=Max("events__seq"))
        .prefetch_related("seats__user")
        .order_by(F("last_event_at").asc(nulls_first=True), "pk")[:RUNNING_SHOWN]
    )
    shown = []
    for match in rows:
        last = match.last_event_at or match.created_at
        shown.append(
            {
                "match": match,
                "idle_seconds": int((now - last).total_seconds()),
                "stalled": match.pk in stalled,
            }
        )
    by_game = dict(running.values_list("game").annotate(count=Count("pk")).values_list("game", "count"))
    overdue = ladder_matches_overdue(now=now)
    for row in shown:
        row["overdue"] = overdue.get(row["match"].pk, "")
    return {
        "count": running.count(),
        "by_game": sorted(by_game.items()),
        "rows": shown,
        "stalled": sorted(stalled),
        "stalled_after": stalled_after,
        "overdue": overdue,
    }


def ladder_matches_overdue(*, now) -> dict[int, str]:
    """Running ladder matches past their ladder's match or move deadline, with which one: the beat's
    deadline sweep (`ratings.deadlines.ladder_deadlines_enforce`) forfeits the late, so any listed here
    for long means the sweep is not running."""
    rows = (
        LadderMatch.objects.filter(match__status=Match.Status.RUNNING)
        .select_related("round__ladder", "match")
        .annotate(last_event_at=Max("match__events__created_at"))
        .order_by("match_id")[:OVERDUE_CHECKED]
    )
    overdue = {}
    for row in rows:
        ladder, started = row.round.ladder, row.match.created_at
        if now - started > timedelta(seconds=ladder.match_deadline_seconds):
            overdue[row.match_id] = f"past {ladder.name}'s match deadline ({ladder.match_deadline_seconds} s)"
        elif now - (row.last_event_at or started) > timedelta(seconds=ladder.move_deadline_seconds):
            overdue[row.match_id] = f"past {ladder.name}'s move deadline ({ladder.move_deadline_seconds} s)"
    return overdue


def ops_overview(*, now=None) -> dict[str, Any]:
    now = now or timezone.now()
    failure_count, failures = task_failures()
    return {
        "now": now,
        "in_progress": matches_in_progress(now=now),
        "queue": queue_depth(),
        "failure_count": failure_count,
        "failures": failures[:20],
        "forfeits": bot_forfeits_by_reason(),
        "events_rate": per_minute(MatchEvent.objects.all(), "created_at", now=now),
        "ratings_rate": per_minute(RatedMatch.objects.all(), "rated_at", now=now),
        "checks": check_results(),
        "checks_queued": checks_queued(),
        "ladders": Ladder.objects.filter(archived_at__isnull=True).order_by("name")[:100],
    }


def ops_figures(*, now=None) -> dict[str, Any]:
    """The figures the page's live part shows, as the ops stream sends them (JSON)."""
    now = now or timezone.now()
    progress = matches_in_progress(now=now)
    queue = queue_depth()
    failure_count, _ = task_failures()
    rates = {
        name: {
            str(window["minutes"]): window["rate"] for window in per_minute(rows, field, now=now)["windows"]
        }
        for name, rows, field in (
            ("events_per_minute", MatchEvent.objects.all(), "created_at"),
            ("ratings_per_minute", RatedMatch.objects.all(), "rated_at"),
        )
    }
    return {
        "running": progress["count"],
        "running_by_game": dict(progress["by_game"]),
        "stalled": progress["stalled"],
        "overdue": sorted(progress["overdue"]),
        "queue": queue["queues"],
        "unacked": queue["unacked"],
        "broker_error": queue["error"],
        "failed_tasks": failure_count,
        **rates,
        "bot_forfeits": {row["reason"]: row["count"] for row in bot_forfeits_by_reason()},
    }


def ops_snapshot() -> Snapshot:
    figures = ops_figures()
    name = digest(figures)
    return Snapshot(name, message("ops", figures, id=name), over=False)


def _staff_checked(request: HttpRequest) -> None:
    """The stream answers as the API does: 401 to the anonymous, 403 to the signed-in non-staff."""
    user = request_user(request)
    if not user.is_authenticated:
        raise ApplicationError(
            "sign in as staff to follow the operations", code="auth/not_authenticated", status=401
        )
    if not user.is_staff:
        raise Forbidden("the operations figures are for staff", code="ops/staff_only")


@require_GET
async def ops_stream(request: HttpRequest):
    """The operations figures every OPS_STREAM_SECONDS when they changed (text/event-stream)."""
    refused = needs_asgi(request, "/ops/")
    if refused is not None:
        return refused
    try:
        after = digest_after(request)
        await closing(_staff_checked)(request)
        capacity_check()
    except ApplicationError as error:
        return JsonResponse(error.as_body(), status=error.status)
    body = snapshot_events(
        OPS_TOPIC, key=(OPS_TOPIC,), read=closing(ops_snapshot), after=after, poll_seconds=OPS_STREAM_SECONDS
    )
    return event_stream(body)


# --- pages and actions ----------------------------------------------------------------------------


class VoidForm(forms.Form):
    match = forms.IntegerField(min_value=1, max_value=INT_MAX, label="Match id")
    reason = forms.CharField(max_length=200, label="Why")


class ChecksForm(forms.Form):
    check = forms.ChoiceField(
        choices=[("", "all of them")] + [(check, check) for check in CHECKS], required=False
    )


@staff_only
def ops_dashboard(request: HttpRequest) -> HttpResponse:
    context = {"section": "ops", "void_form": VoidForm(), "checks_form": ChecksForm(), **ops_overview()}
    return render_page(request, page="ops/dashboard.html", fragment="ops/_figures.html", context=context)


def _done(request: HttpRequest, text: str) -> HttpResponse:
    messages.success(request, text)
    return redirect("pages:ops")


def _refused(request: HttpRequest, error: ApplicationError | str) -> HttpResponse:
    detail = error.detail if isinstance(error, ApplicationError) else error
    code = f" ({error.code})" if isinstance(error, ApplicationError) else ""
    messages.error(request, f"{detail}{code}")
    return redirect("pages:ops")


@staff_only
@require_POST
def ops_ladder_pause(request: HttpRequest, ladder_id: int) -> HttpResponse:
    resume = request.POST.get("resume") == "1"
    try:
        ladder = (ladder_resume if resume else ladder_pause)(ladder_id=ladder_id, by=request.user)
    except ApplicationError as error:
        return _refused(request, error)
    return _done(request, f"Ladder {ladder.name} {'resumed' if resume else 'paused'}.")


@staff_only
@require_POST
def ops_match_void(request: HttpRequest) -> HttpResponse:
    form = VoidForm(request.POST)
    if not form.is_valid():
        return _refused(
            request, "; ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items())
        )
    try:
        match_void(match_id=form.cleaned_data["match"], by=request.user, reason=form.cleaned_data["reason"])
    except ApplicationError as error:
        return _refused(request, error)
    return _done(request, f"Match {form.cleaned_data['match']} voided: a void event ends its log.")


@staff_only
@require_POST
def ops_checks_queue(request: HttpRequest) -> HttpResponse:
    form = ChecksForm(request.POST)
    if not form.is_valid():
        return _refused(request, "no such check")
    checks = [form.cleaned_data["check"]] if form.cleaned_data["check"] else list(CHECKS)
    check_queued_record(checks=checks, by=request.user.get_username())
    ops_checks_run.delay(checks=checks)
    return _done(request, f"Queued for a worker: {', '.join(checks)}.")
