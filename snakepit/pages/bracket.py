"""An elimination bracket as server-made SVG: the winners bracket on top, the losers bracket below it,
the final(s) to the right, each match a box linked to its Snakepit match, wires from each match to the
one its winner goes to. Drawn from the tournament's `bracket` projection (`lifecycle.bracket`, what
`/api/tournaments/<slug>/bracket/` returns), nothing else."""

from __future__ import annotations

from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

BOX_W, ROW_H, GAP_X, GAP_Y, TITLE_H, MARGIN = 190, 22, 46, 16, 34, 10
SECTIONS = (("winners", "Winners bracket"), ("losers", "Losers bracket"), ("third_place", "Third place"))
LIVE_STATUSES = {"open"}  # a table is paired and being played


def _box_height(match: dict[str, Any]) -> int:
    return ROW_H * max(len(match["slots"]), 1)


def _layout_section(
    matches: list[dict[str, Any]], top: float, left: float
) -> tuple[dict[str, tuple[float, float]], float, float]:
    """Positions (x, y) of a section's match boxes by round: the first round stacked, each later match
    centred on the matches that feed its winners into it. Returns positions, bottom and right edges."""
    rounds = sorted({m["round"] for m in matches})
    column = {r: k for k, r in enumerate(rounds)}
    feeders: dict[str, list[str]] = {}
    for m in matches:
        if m["winner_to"]:
            feeders.setdefault(m["winner_to"], []).append(m["match_key"])
    positions: dict[str, tuple[float, float]] = {}
    bottom = top + TITLE_H
    for r in rounds:
        cursor = top + TITLE_H
        for m in [m for m in matches if m["round"] == r]:
            x = left + column[r] * (BOX_W + GAP_X)
            fed = [positions[key][1] for key in feeders.get(m["match_key"], []) if key in positions]
            y = max(sum(fed) / len(fed), cursor) if fed else cursor
            positions[m["match_key"]] = (x, y)
            cursor = y + _box_height(m) + GAP_Y
            bottom = max(bottom, cursor)
    right = left + len(rounds) * (BOX_W + GAP_X)
    return positions, bottom, right


def bracket_svg(tree: dict[str, Any], *, names: dict[str, str], match_urls: dict[str, str]) -> SafeString:
    """`tree` is a bracket projection; `names` maps player ids to labels; `match_urls` maps a match key
    to the page of its (latest) Snakepit match."""
    by_section: dict[str, list[dict[str, Any]]] = {}
    for m in tree["matches"]:
        by_section.setdefault(m["bracket"], []).append(m)
    positions: dict[str, tuple[float, float]] = {}
    titles = []
    top, right_edge = MARGIN, MARGIN
    winners_top = top
    for key, title in SECTIONS:
        if key not in by_section:
            continue
        placed, bottom, right = _layout_section(by_section[key], top, MARGIN)
        positions.update(placed)
        titles.append((MARGIN, top + 14, title))
        top, right_edge = bottom + GAP_Y, max(right_edge, right)
    finals = by_section.get("final", [])
    if finals:
        titles.append((right_edge, winners_top + 14, "Final" if len(finals) == 1 else "Grand final"))
        y = winners_top + TITLE_H
        for k, m in enumerate(sorted(finals, key=lambda m: (m["round"], m["match_key"]))):
            positions[m["match_key"]] = (right_edge + k * (BOX_W + GAP_X), y)
        right_edge += len(finals) * (BOX_W + GAP_X)
    width = right_edge + MARGIN
    height = max(top, winners_top + TITLE_H + 3 * ROW_H) + MARGIN
    boxes = {m["match_key"]: m for m in tree["matches"]}
    wires = []
    for m in tree["matches"]:
        target = m["winner_to"]
        if target in positions and m["match_key"] in positions:
            x1, y1 = positions[m["match_key"]]
            x2, y2 = positions[target]
            y1 += _box_height(m) / 2
            y2 += _box_height(boxes[target]) / 2
            middle = x1 + BOX_W + GAP_X / 2 if x2 > x1 else x1 + BOX_W + 8
            wires.append((f"M{x1 + BOX_W:.0f},{y1:.0f} H{middle:.0f} V{y2:.0f} H{x2:.0f}",))
    body = format_html_join("", '<path class="wire" d="{}"/>', wires)
    body += format_html_join("", '<text class="round-title" x="{}" y="{}">{}</text>', titles)
    body += mark_safe("".join(_box(m, positions[m["match_key"]], names, match_urls) for m in tree["matches"]))
    champion = tree.get("champion")
    summary = f"Champion: {names.get(champion, champion)}." if champion else "In progress."
    return format_html(
        '<svg class="bracket" role="img" aria-labelledby="bracket-svg-title" viewBox="0 0 {w} {h}" '
        'width="{w}" height="{h}"'
        ' xmlns="http://www.w3.org/2000/svg"><title id="bracket-svg-title">'
        "{kind} elimination bracket. {summary}</title>"
        "{body}</svg>",
        w=f"{width:.0f}",
        h=f"{height:.0f}",
        kind="Double" if tree.get("kind") == "double" else "Single",
        summary=summary,
        body=body,
    )


def _box(
    match: dict[str, Any], at: tuple[float, float], names: dict[str, str], match_urls: dict[str, str]
) -> str:
    x, y = at
    status = match["status"]
    rows = []
    for k, slot in enumerate(match["slots"]):
        player = slot["player"]
        won = player is not None and player == match.get("winner")
        label = names.get(player, player) if player else slot["source"]
        rows.append(
            format_html(
                '<rect class="slot{won}{live}" x="{x}" y="{y}" width="{w}" height="{h}"/>'
                '<text x="{tx}" y="{ty}"{muted}{bold}>{label}</text>',
                won=" won" if won else "",
                live=" live" if status in LIVE_STATUSES else "",
                x=f"{x:.0f}",
                y=f"{y + k * ROW_H:.0f}",
                w=BOX_W,
                h=ROW_H,
                tx=f"{x + 6:.0f}",
                ty=f"{y + k * ROW_H + 15:.0f}",
                muted=mark_safe(' fill-opacity="0.6" font-style="italic"') if not player else "",
                bold=mark_safe(' font-weight="700"') if won else "",
                label=_clip(str(label)),
            )
        )
    players = [names.get(s["player"], s["player"]) if s["player"] else s["source"] for s in match["slots"]]
    title = f"{match['match_key']}: {' vs '.join(players)} ({status}" + (
        f", won by {names.get(match['winner'], match['winner'])})" if match.get("winner") else ")"
    )
    key_label = format_html(
        '<text x="{}" y="{}" font-size="10" fill-opacity="0.7">{}</text>',
        f"{x:.0f}",
        f"{y - 3:.0f}",
        match["match_key"],
    )
    inner = format_html("<title>{}</title>{}{}", title, key_label, mark_safe("".join(rows)))
    url = match_urls.get(match["match_key"])
    if url:
        return format_html(
            '<a href="{}" class="bracket-match" data-match-key="{}">{}</a>', url, match["match_key"], inner
        )
    return format_html('<g class="bracket-match" data-match-key="{}">{}</g>', match["match_key"], inner)


def _clip(text: str, limit: int = 26) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
