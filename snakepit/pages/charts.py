"""Server-made SVG: a rating history chart. Pure functions from numbers to markup (no JavaScript, no
chart library), so a chart is in the page's HTML, readable without scripts and in a screenshot."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

MAX_POINTS = 2000  # a longer history is thinned to this many points, keeping the first and last


@dataclass(frozen=True)
class RatingPoint:
    game: int  # games played after this change
    mu: float
    sigma: float
    ordinal: float
    match_id: int | None = None


def _thin(points: list[RatingPoint]) -> list[RatingPoint]:
    if len(points) <= MAX_POINTS:
        return points
    step = (len(points) - 1) / (MAX_POINTS - 1)
    return [points[round(k * step)] for k in range(MAX_POINTS)]


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        return [low]
    return [low + (high - low) * k / (count - 1) for k in range(count)]


def rating_chart(points: list[RatingPoint], *, title: str, width: int = 720, height: int = 300) -> SafeString:
    """μ as a line within its ±σ band and the ordinal (μ − 3σ) dashed, over games played."""
    if not points:
        return format_html('<p class="muted">{}</p>', "No rated games yet.")
    points = _thin(points)
    left, right, top, bottom = 52, 16, 16, 36
    plot_w, plot_h = width - left - right, height - top - bottom
    low = min(min(p.mu - p.sigma, p.ordinal) for p in points)
    high = max(p.mu + p.sigma for p in points)
    if high - low < 1:
        low, high = low - 0.5, high + 0.5
    first, last = points[0].game, points[-1].game
    span = max(last - first, 1)

    def x(game: int) -> float:
        return left + (game - first) / span * plot_w

    def y(value: float) -> float:
        return top + (high - value) / (high - low) * plot_h

    band = " ".join(f"{x(p.game):.1f},{y(p.mu + p.sigma):.1f}" for p in points)
    band += " " + " ".join(f"{x(p.game):.1f},{y(p.mu - p.sigma):.1f}" for p in reversed(points))
    mu_line = " ".join(f"{x(p.game):.1f},{y(p.mu):.1f}" for p in points)
    ordinal_line = " ".join(f"{x(p.game):.1f},{y(p.ordinal):.1f}" for p in points)
    grid = format_html_join(
        "",
        '<line class="grid" x1="{}" x2="{}" y1="{}" y2="{}"/><text x="{}" y="{}" text-anchor="end">{}</text>',
        (
            (left, width - right, f"{y(v):.1f}", f"{y(v):.1f}", left - 6, f"{y(v) + 4:.1f}", f"{v:.1f}")
            for v in _ticks(low, high)
        ),
    )
    game_ticks = (
        sorted({first + span * k // 4 for k in range(5)}) if span > 8 else list(range(first, last + 1))
    )
    x_labels = format_html_join(
        "",
        '<text x="{}" y="{}" text-anchor="middle">{}</text>',
        ((f"{x(g):.1f}", height - bottom + 16, g) for g in game_ticks),
    )
    dots = format_html_join(
        "",
        '<circle class="dot" cx="{}" cy="{}" r="2.5"><title>'
        "after game {}: μ {}, σ {}, ordinal {}</title></circle>",
        (
            (
                f"{x(p.game):.1f}",
                f"{y(p.mu):.1f}",
                p.game,
                f"{p.mu:.2f}",
                f"{p.sigma:.2f}",
                f"{p.ordinal:.2f}",
            )
            for p in points[-200:]
        ),
    )
    return format_html(
        '<svg class="chart" role="img" aria-labelledby="chart-title chart-desc" viewBox="0 0 {w} {h}" '
        'width="{w}" height="{h}"'
        ' xmlns="http://www.w3.org/2000/svg">'
        '<title id="chart-title">{title}</title><desc id="chart-desc">{desc}</desc>'
        "{grid}"
        '<line class="axis" x1="{l}" x2="{l}" y1="{t}" y2="{b}"/>'
        '<line class="axis" x1="{l}" x2="{r}" y1="{b}" y2="{b}"/>'
        '<polygon class="band" points="{band}"/>'
        '<polyline class="line" points="{mu}"/>'
        '<polyline class="line ordinal" points="{ordinal}" stroke-dasharray="5 4" '
        'style="stroke: var(--warn)"/>'
        "{dots}{x_labels}"
        '<text x="{mid}" y="{h_label}" text-anchor="middle">games played</text>'
        "</svg>",
        w=width,
        h=height,
        title=title,
        desc=f"μ from {points[0].mu:.2f} to {points[-1].mu:.2f} over {last} games; "
        f"ordinal now {points[-1].ordinal:.2f}",
        grid=grid,
        l=left,
        r=width - right,
        t=top,
        b=height - bottom,
        band=band,
        mu=mu_line,
        ordinal=ordinal_line,
        dots=dots,
        x_labels=x_labels,
        mid=left + plot_w / 2,
        h_label=height - 4,
    )


def legend() -> SafeString:
    return mark_safe(
        '<p class="muted">Solid line: μ, with the shaded band μ ± σ. Dashed line: ordinal (μ − 3σ), what the '
        "leaderboard sorts by.</p>"
    )
