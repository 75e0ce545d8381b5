"""A readable rendering of any engine view (a JSON object): nested definition lists and lists, so that
every game has a page on day one, before anyone draws it with its own template. The rendering shows
exactly the view it is given and nothing more: the caller picks the view (a seat's, a spectator's)."""

from __future__ import annotations

from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

MAX_DEPTH = 12  # a view nested deeper is shown as its JSON text at that depth
MAX_ITEMS = 500  # items of one list or object shown; the rest are counted, not drawn


def label_of(key: str) -> str:
    """`cards_in_hand` -> "Cards in hand"."""
    text = str(key).replace("_", " ").strip()
    return text[:1].upper() + text[1:] if text else "—"


def view_html(view: Any) -> SafeString:
    """`view` as HTML inside a `.view-tree` block."""
    return format_html('<div class="view-tree">{}</div>', _value_html(view, 0))


def _value_html(value: Any, depth: int) -> SafeString:
    if value is None:
        return mark_safe('<span class="hidden-value">none</span>')
    if isinstance(value, bool):
        return format_html("{}", "yes" if value else "no")
    if isinstance(value, (int, float, str)):
        return format_html("{}", value)
    if depth >= MAX_DEPTH:
        return format_html("<code>{}</code>", repr(value)[:200])
    if isinstance(value, dict):
        if not value:
            return mark_safe('<span class="hidden-value">empty</span>')
        items = list(value.items())
        body = format_html_join(
            "",
            "<dt>{}</dt><dd>{}</dd>",
            ((label_of(k), _value_html(v, depth + 1)) for k, v in items[:MAX_ITEMS]),
        )
        return format_html("<dl>{}</dl>{}", body, _more(len(items)))
    if isinstance(value, (list, tuple)):
        if not value:
            return mark_safe('<span class="hidden-value">empty</span>')
        if all(isinstance(item, (int, float, str)) and not isinstance(item, bool) for item in value):
            shown = ", ".join(str(item) for item in value[:MAX_ITEMS])
            return format_html("{}{}", shown, _more(len(value)))
        body = format_html_join(
            "", "<li>{}</li>", ((_value_html(item, depth + 1),) for item in value[:MAX_ITEMS])
        )
        return format_html("<ul>{}</ul>{}", body, _more(len(value)))
    return format_html("{}", str(value))


def _more(count: int) -> SafeString:
    if count <= MAX_ITEMS:
        return mark_safe("")
    return format_html(' <span class="muted">(and {} more)</span>', count - MAX_ITEMS)
