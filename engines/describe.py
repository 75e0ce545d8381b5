"""The log in sentences: the words every game's `Game.describe_event` is built from, and the plain
sentence any game gets without writing one (docs/engines.md, "The log in sentences").

A sentence is told from a viewer's side: the viewer's own seat is "you", every other seat its name.
It is made from the event as that viewer may read it, so a payload withheld from them (None) can
never reach their sentence. Long hex (a commitment, a seed) is shortened rather than printed: a
sentence is for people; the payload beside it keeps every digit. Pure: no Django, clock or I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

HEX_SHOWN = 8  # digits kept of a long hex string: enough to tell two apart at a glance
_LONG_HEX = re.compile(r"[0-9a-fA-F]{17,}")
LIST_SHOWN = 6  # items of a list spelt out before the rest are counted


def seat_name(seat: int | None, *, viewer: int | None, seat_names: Sequence[str]) -> str:
    """ "you" for the viewer's own seat, else the seat's name ("seat 3" past the names given)."""
    if seat is None:
        return "someone"
    if seat == viewer:
        return "you"
    return seat_names[seat] if 0 <= seat < len(seat_names) else f"seat {seat}"


def possessive(name: str) -> str:
    """ "your" for "you", else "alice's"."""
    return "your" if name == "you" else f"{name}'s"


def own(name: str) -> str:
    """The actor's own things: "your" for "you", else "their" ("alice equipped Gun on their first
    Body Card"); `possessive` is for another seat's."""
    return "your" if name == "you" else "their"


def listed(items: Iterable[str], *, conjunction: str = "and") -> str:
    """ "a", "a and b", "a, b and c"."""
    items = [item for item in items if item]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def ordinal(number: int) -> str:
    """1 -> "first" ... 10 -> "tenth", then "11th"."""
    words = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
    if 1 <= number <= len(words):
        return words[number - 1]
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def counted(number: int, thing: str, plural: str | None = None) -> str:
    """ "1 card", "3 cards"."""
    return f"{number} {thing if number == 1 else (plural or thing + 's')}"


def words(key: str) -> str:
    """A machine key as words: "side_bet" -> "side bet", "bow-out" -> "bow out"."""
    return str(key).replace("_", " ").replace("-", " ").strip()


def short_hex(text: str) -> str:
    """`text` with every hex run longer than 16 digits cut to its first HEX_SHOWN and an ellipsis."""
    return _LONG_HEX.sub(lambda found: found.group(0)[:HEX_SHOWN] + "…", text)


def plain_value(value: Any) -> str:
    """Any JSON value as short words: numbers and strings as they are (long hex shortened), a short
    list spelt out, a long one counted, an object as its fields."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return short_hex(value)
    if isinstance(value, Mapping):
        return "; ".join(f"{words(key)} {plain_value(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        if len(value) > LIST_SHOWN:
            return counted(len(value), "item")
        return listed([plain_value(item) for item in value]) or "nothing"
    return short_hex(str(value))


def plain_fields(payload: Mapping[str, Any], *, leave_out: Iterable[str] = ("type",)) -> str:
    """The payload's fields, less `leave_out`, as "stake 23, prediction guards the grain"."""
    left_out = set(leave_out)
    return ", ".join(
        f"{words(key)} {plain_value(value)}" for key, value in payload.items() if key not in left_out
    )


def chance_words(payload: Mapping[str, Any] | None) -> str:
    """A chance outcome as words, whatever the game: the dice, a shuffle, a pick."""
    if payload is None:
        return "chance drew something hidden"
    if "dice" in payload and isinstance(payload["dice"], list):
        dice = [str(die) for die in payload["dice"]]
        return f"the {'die shows' if len(dice) == 1 else 'dice show'} {listed(dice)}"
    if "permutation" in payload:
        return "the cards were shuffled"
    if "index" in payload:
        return f"pick number {plain_value(payload['index'])} was drawn"
    return f"chance: {plain_value(dict(payload))}"


def plain_sentence(event: Any, *, viewer: int | None, seat_names: Sequence[str]) -> str:
    """The sentence any game's event gets without a describer of its own: who did what, from the
    kind and the payload as the viewer may read it ("alice: side bet (stake 23)", "bob acted
    (hidden until the match ends)", "the dice show 3 and 5", "carol forfeited: timeout")."""
    payload = event.payload
    if event.kind == "chance":
        return chance_words(payload)
    who = seat_name(event.seat, viewer=viewer, seat_names=seat_names)
    if event.kind == "forfeit":
        reason = plain_value((payload or {}).get("reason", "")) if payload is not None else ""
        return f"{who} forfeited" + (f": {reason}" if reason else "")
    if payload is None:
        return f"{who} acted (hidden until the match ends)"
    action = words(payload.get("type", event.kind))
    details = plain_fields(payload)
    return f"{who}: {action}" + (f" ({details})" if details else "")


def forfeit_sentence(event: Any, *, viewer: int | None, seat_names: Sequence[str]) -> str:
    """A forfeit, as every game tells it: the reason is the store's words (a timeout, a bot's
    illegal action), never a secret."""
    return plain_sentence(event, viewer=viewer, seat_names=seat_names)
