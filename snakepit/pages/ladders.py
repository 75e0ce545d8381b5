"""Ladder pages: the list, a ladder's leaderboard and recent matches, a competitor's rating history.

The leaderboard's places are the API's (`leaderboard` without `include_inactive`): entries that are
ranked, a paused one among them, marked with why. Below them come the entries the ladder counts
inactive, marked and without a place, and, on asking (`?left=1`), the entries that left.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone

from core.errors import NotFound
from ratings.models import Ladder, LadderEntry
from ratings.selectors import entries_ranked, entry_history, ladder_matches, leaderboard, leaderboard_row
from ratings.services import ladder_get
from snakepit.pages.charts import RatingPoint, legend, rating_chart
from snakepit.pages.common import render_page, row_id

RECENT_MATCHES = 20
HISTORY_ROWS = 50  # rated matches listed under the chart, newest first (the chart has them all)


def ladder_list(request: HttpRequest) -> HttpResponse:
    ladders = [_ladder_card(ladder) for ladder in Ladder.objects.order_by("-is_active", "game", "name")[:200]]
    return render_page(
        request, page="pages/ladder_list.html", context={"section": "ladders", "ladders": ladders}
    )


def _ladder_card(ladder: Ladder) -> dict:
    rows = leaderboard(ladder=ladder)
    leader = next((row for row in rows if row["games"]), None)
    return {"ladder": ladder, "leader": leader, "entries": len(rows)}


def _ladder_or_404(slug: str) -> Ladder:
    try:
        return ladder_get(slug=slug)
    except NotFound:
        raise Http404(f"no ladder {slug}") from None


def _marks(row: dict, ladder: Ladder, *, left_at=None) -> list[dict[str, str]]:
    """The badges saying why an entry sits out: it left, the ladder paused it (and why), or it has
    not played for the ladder's `inactive_after_days`."""
    if left_at is not None:
        return [{"text": "left", "title": f"left the ladder on {left_at:%Y-%m-%d}", "tone": "bad"}]
    marks = []
    if row["paused"]:
        reason = row["paused"]
        title = LadderEntry.Pause(reason).label if reason in LadderEntry.Pause.values else reason
        marks.append(
            {
                "text": f"paused: {reason.replace('_', ' ')}",
                "title": f"sits out the rounds: {title}",
                "tone": "bad",
            }
        )
    if row["inactive"]:
        marks.append(
            {
                "text": "inactive",
                "title": f"has not played for {ladder.inactive_after_days} days: "
                f"off the ranking until it plays",
                "tone": "warn",
            }
        )
    return marks


def _leaderboard_rows(ladder: Ladder, *, show_left: bool) -> tuple[list[dict], int]:
    """The ranked rows, then the inactive ones (no place), then, when asked, those that left; and how
    many left, for the toggle."""
    now = timezone.now()
    rows = leaderboard(ladder=ladder, now=now)
    ranked = {row["entry"] for row in rows}
    rows += [
        leaderboard_row(entry=entry, ladder=ladder, position=None, now=now)
        for entry in entries_ranked(ladder=ladder, include_inactive=True, now=now)
        if entry.pk not in ranked
    ]
    for row in rows:
        row["marks"] = _marks(row, ladder)
    left = entries_ranked(ladder=ladder, include_left=True, include_inactive=True, now=now).filter(
        left_at__isnull=False
    )
    if show_left:
        for entry in left:
            row = leaderboard_row(entry=entry, ladder=ladder, position=None, now=now)
            rows.append({**row, "marks": _marks(row, ladder, left_at=entry.left_at)})
    return rows, left.count()


def ladder_detail(request: HttpRequest, slug: str) -> HttpResponse:
    ladder = _ladder_or_404(slug)
    show_left = request.GET.get("left") == "1"
    rows, left_count = _leaderboard_rows(ladder, show_left=show_left)
    recent = (
        ladder_matches(ladder=ladder)
        .select_related("match")
        .order_by("-match__created_at", "-pk")[:RECENT_MATCHES]
    )
    context = {
        "section": "ladders",
        "ladder": ladder,
        "rows": rows,
        "show_left": show_left,
        "left_count": left_count,
        "recent": [(row.match, [seat.label for seat in row.match.seats.order_by("index")]) for row in recent],
    }
    return render_page(
        request, page="pages/ladder_detail.html", fragment="pages/_ladder_body.html", context=context
    )


def ladder_entry(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    """A competitor's rating history on this ladder, as a chart and a table of its rated matches."""
    ladder = _ladder_or_404(slug)
    entry = ladder.entries.select_related("user").filter(pk=row_id(entry_id)).first()
    if entry is None:
        raise Http404(f"no entry {entry_id} on ladder {slug}")
    # The selector gives the newest first (as the API pages it); the chart runs oldest to newest.
    changes = list(entry_history(entry=entry).order_by("rated_match_id"))
    start = (
        RatingPoint(
            game=0, mu=changes[0].mu_before, sigma=changes[0].sigma_before, ordinal=changes[0].ordinal_before
        )
        if changes
        else None
    )
    points = ([start] if start else []) + [
        RatingPoint(
            game=k,
            mu=c.mu_after,
            sigma=c.sigma_after,
            ordinal=c.ordinal_after,
            match_id=c.rated_match.match_id,
        )
        for k, c in enumerate(changes, start=1)
    ]
    context = {
        "section": "ladders",
        "ladder": ladder,
        "entry": entry,
        "chart": rating_chart(points, title=f"Rating history of {entry.label} on {ladder.name}"),
        "legend": legend(),
        "changes": list(reversed(list(enumerate(changes, start=1))))[:HISTORY_ROWS],
    }
    return render_page(request, page="pages/ladder_entry.html", context=context)
