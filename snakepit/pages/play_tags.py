"""Template filters the play boards use (`{% load play %}`): a view's lists are read by position and
its rule words shown as words."""

from __future__ import annotations

from typing import Any

from django import template

from snakepit.pages.play_actions import value_label, words

register = template.Library()


@register.filter
def at(container: Any, key: Any) -> Any:
    """`purses|at:seat.index`: an item by position or key; None where there is none."""
    try:
        return container[key]
    except (KeyError, IndexError, TypeError):
        if isinstance(key, str) and key.lstrip("-").isdigit():
            try:
                return container[int(key)]
            except (KeyError, IndexError, TypeError):
                return None
        return None


@register.filter(name="words")
def words_filter(value: Any) -> str:
    return words(value) if value is not None else ""


@register.filter
def readable(value: Any) -> str:
    """Any view value as a short phrase: a list joined, a dict as `name value` pairs."""
    return value_label(value)


@register.filter
def seat_name(seats: list[dict[str, Any]], index: Any) -> str:
    """The name at a seat: a username or `bot:<name>`; "seat N" when unknown."""
    try:
        return seats[int(index)]["label"]
    except (IndexError, KeyError, TypeError, ValueError):
        return f"seat {index}"


@register.filter
def card_key(card: Any) -> str:
    """A card that a view gives as `{"id": .., "key": ..}` or as its key alone, as words."""
    if isinstance(card, dict):
        return words(card.get("key", card.get("card", "?")))
    return words(card)
