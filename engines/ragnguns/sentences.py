"""Rag'n'Guns' log in sentences (`Game.describe_event`): cards by their printed names, zones and
steps in the rulebook's capitals (ALLEY, SHELTER, HIDEOUT, TRAP, GUNFIGHT). A deck list, a TRAP's
card and the hidden order are their author's until the end: a viewer without the payload reads only
that a choice was made face down."""

from __future__ import annotations

from collections.abc import Sequence

from engines.describe import counted, listed, ordinal, own, plain_sentence, seat_name
from engines.protocol import Event
from engines.ragnguns.catalogue import load_catalogue

PLAIN_ACTIONS = {
    "follow": "followed the TRAP, paying its Bullets",
    "raise": "raised the TRAP by one Bullet",
    "do_nothing": "did nothing about the TRAP",
    "end_turn": "ended the turn",
}
TARGETS = {"gunslinger": "the GUNSLINGER", "alley": "the ALLEY card", "shelter": "the SHELTER card"}


def card_name(card: object) -> str:
    """A card's printed name by its id (the id itself for one the catalogue does not hold)."""
    found = load_catalogue().by_id(card) if isinstance(card, str) else None
    return found.name if found is not None else str(card)


def cards_named(cards: object) -> str:
    return listed([card_name(card) for card in cards]) if isinstance(cards, list) and cards else "nothing"


def _choices(payload: dict, who: str) -> str:
    """The choices a placed card's or a played Effect's payload carries, as a clause."""
    parts = []
    if "target" in payload:
        parts.append(f"aiming at {TARGETS.get(payload['target'], str(payload['target']))}")
    if "pick" in payload:
        where = (
            f" on {own(who)} {ordinal(payload['slot'] + 1)} HIDEOUT slot"
            if isinstance(payload.get("slot"), int)
            else ""
        )
        parts.append(f"picking {card_name(payload['pick'])}{where}")
    elif isinstance(payload.get("slot"), int):
        parts.append(f"on the {ordinal(payload['slot'] + 1)} HIDEOUT slot")
    return "".join(f", {part}" for part in parts)


def _hidden_slots(slots: object) -> str:
    if not isinstance(slots, list):
        return "cards"
    filled = [
        f"{cards_named(cards)} in the {ordinal(index + 1)} slot"
        for index, cards in enumerate(slots)
        if isinstance(cards, list) and cards
    ]
    return listed(filled) or "nothing"


def describe_event(event: Event, *, viewer: int | None, seat_names: Sequence[str]) -> str:
    payload = event.payload
    if event.kind == "chance":
        if payload is not None and isinstance(payload.get("index"), int):
            return f"{seat_name(payload['index'], viewer=viewer, seat_names=seat_names)} went first"
        return "a deck was shuffled"
    if event.kind != "action":
        return plain_sentence(event, viewer=viewer, seat_names=seat_names)
    who = seat_name(event.seat, viewer=viewer, seat_names=seat_names)
    if payload is None:  # a deck list, a TRAP's card or the HIDEOUT's order
        return f"{who} chose face down"
    kind = payload.get("type")
    if kind in PLAIN_ACTIONS:
        return f"{who} {PLAIN_ACTIONS[kind]}"
    if kind == "bring_deck":
        return (
            f"{who} brought {card_name(payload.get('gunslinger'))} with {cards_named(payload.get('cards'))}"
        )
    if kind == "set_trap":
        return f"{who} set {card_name(payload.get('card'))} face down as the TRAP"
    if kind == "trap":
        return f"{who} laid a TRAP for {counted(payload.get('bullets', 0), 'Bullet')}"
    if kind == "hide":
        return f"{who} hid {_hidden_slots(payload.get('slots'))} of the HIDEOUT"
    if kind == "place":
        zone = str(payload.get("zone", "")).upper()
        return f"{who} placed {card_name(payload.get('card'))} in the {zone}" + _choices(payload, who)
    if kind == "play":
        effect = payload.get("effect")
        which = f"the {ordinal(effect + 1)} Effect of " if isinstance(effect, int) else ""
        return f"{who} played {which}{card_name(payload.get('card'))}" + _choices(payload, who)
    if kind == "gunfight":
        return f"{who} started a GUNFIGHT with {counted(payload.get('bullets', 0), 'Bullet')}"
    if kind == "distribute":
        alley = payload.get("alley", 0)
        return f"{who} distributed the Bullets: {alley} to the ALLEY card, the rest to the GUNSLINGER"
    if kind == "ready":
        return f"{who} readied {own(who)} GUNSLINGER"
    if kind in ("discard", "discard_from_hand"):
        return f"{who} discarded {card_name(payload.get('card'))}"
    return plain_sentence(event, viewer=viewer, seat_names=seat_names)
