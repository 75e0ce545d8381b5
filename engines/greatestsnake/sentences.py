"""The Greatest Snake's log in sentences (`Game.describe_event`): every card by its printed name
(Rat King, Super Glue, Slippery Scales), snakes by whose they are, the rulebook's "Digest!" and Pit.
A draw never names its card: the card is in the drawer's view only, never in a payload."""

from __future__ import annotations

from collections.abc import Sequence

from engines.describe import ordinal, own, plain_sentence, possessive, seat_name
from engines.greatestsnake.catalogue import CARDS
from engines.protocol import Event

PLAIN_ACTIONS = {
    "draw": "drew a card",
    "draw_from_pit": "drew the top rat out of the Pit",
    "eat": "ate the rat",
    "to_pit": "put the rat in the Pit",
    "digest": "declared “Digest!”",
    "pass": "passed",
}


def card_name(card: object) -> str:
    """A card's printed name by its id ("card 99" for an id the catalogue does not hold)."""
    if isinstance(card, int) and not isinstance(card, bool) and 0 <= card < len(CARDS):
        return CARDS[card].name
    return f"card {card}"


def _aimed(payload: dict, who: str, *, viewer: int | None, seat_names: Sequence[str]) -> str:
    """What a played power or a used ability is aimed at, from the fields the action carries."""
    parts = []
    if isinstance(payload.get("snake"), int):
        owner = seat_name(payload["snake"], viewer=viewer, seat_names=seat_names)
        parts.append(f"at {own(who) if owner == who else possessive(owner)} snake")
    if "rat" in payload:
        parts.append(f"on {card_name(payload['rat'])}")
    if "target" in payload:
        parts.append(f"on {card_name(payload['target'])}")
    if "mine" in payload and "theirs" in payload:
        parts.append(f"swapping {card_name(payload['mine'])} for {card_name(payload['theirs'])}")
    if "equipment" in payload and payload.get("type") == "play":
        parts.append(f"taking {card_name(payload['equipment'])}")
    if isinstance(payload.get("body"), int):
        parts.append(f"onto {own(who)} {ordinal(payload['body'] + 1)} Body Card")
    if isinstance(payload.get("entry"), int):
        parts.append(f"against the {ordinal(payload['entry'] + 1)} card on the stack")
    if "ammo" in payload:
        parts.append(f"with {card_name(payload['ammo'])} as ammo")
    return "".join(f" {part}" for part in parts)


def describe_event(event: Event, *, viewer: int | None, seat_names: Sequence[str]) -> str:
    payload = event.payload
    if event.kind == "chance":
        if payload is not None and isinstance(payload.get("index"), int):
            return f"{seat_name(payload['index'], viewer=viewer, seat_names=seat_names)} went first"
        return "the Deck was shuffled"
    if event.kind != "action" or payload is None:
        return plain_sentence(event, viewer=viewer, seat_names=seat_names)
    who = seat_name(event.seat, viewer=viewer, seat_names=seat_names)
    kind = payload.get("type")
    if kind in PLAIN_ACTIONS:
        return f"{who} {PLAIN_ACTIONS[kind]}"
    if kind == "equip":
        body = payload.get("body")
        where = f" on {own(who)} {ordinal(body + 1)} Body Card" if isinstance(body, int) else ""
        return f"{who} equipped {card_name(payload.get('card'))}{where}"
    if kind == "play":
        return f"{who} played {card_name(payload.get('card'))}" + _aimed(
            payload, who, viewer=viewer, seat_names=seat_names
        )
    if kind == "use":
        return f"{who} used {card_name(payload.get('equipment'))}" + _aimed(
            payload, who, viewer=viewer, seat_names=seat_names
        )
    if kind == "discard":
        return f"{who} discarded {card_name(payload.get('card'))}"
    if kind == "discard_equipment":
        return f"{who} discarded {card_name(payload.get('equipment'))} from the snake"
    return plain_sentence(event, viewer=viewer, seat_names=seat_names)
