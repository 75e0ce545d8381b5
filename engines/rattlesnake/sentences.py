"""Rattlesnake's log in sentences (`Game.describe_event`): cards by their printed titles (Switch Up,
Take Cover), player cards by value, Hits as Hits, the pistol passed as the rulebook passes it."""

from __future__ import annotations

from collections.abc import Sequence

from engines.describe import listed, ordinal, plain_sentence, seat_name
from engines.protocol import Event
from engines.rattlesnake.catalogue import CATALOGUE, HIT

TITLES = {card.name: card.title for card in (*CATALOGUE.actions, *CATALOGUE.events)}


def card_name(card: object) -> str:
    """A card as a person reads it: a saloon card's title, "a Hit", or a player card's value."""
    if card == HIT:
        return "a Hit"
    if isinstance(card, str) and card in TITLES:
        return TITLES[card]
    return f"a {card}"


def cards_named(cards: object) -> str:
    return listed([card_name(card) for card in cards]) if isinstance(cards, list) and cards else "no card"


def _use(who: str, payload: dict) -> str:
    sentence = f"{who} used {card_name(payload.get('card'))}"
    index, other = payload.get("index"), payload.get("other")
    if "pick" in payload:
        return f"{sentence} to take back {card_name(payload['pick'])}"
    if isinstance(index, int) and "value" in payload:
        return f"{sentence} to set the {ordinal(index + 1)} card to {payload['value']}"
    if isinstance(index, int) and isinstance(other, int):
        return f"{sentence} to swap the {ordinal(index + 1)} card with the {ordinal(other + 1)} opposing one"
    if isinstance(index, int):
        return f"{sentence} on the {ordinal(index + 1)} card"
    return sentence


def describe_event(event: Event, *, viewer: int | None, seat_names: Sequence[str]) -> str:
    payload = event.payload
    if event.kind == "chance":
        if payload is not None and isinstance(payload.get("index"), int):
            return f"the pistol goes to {seat_name(payload['index'], viewer=viewer, seat_names=seat_names)}"
        return (
            "the cards were shuffled"
            if payload is None or "permutation" in payload
            else plain_sentence(event, viewer=viewer, seat_names=seat_names)
        )
    if event.kind != "action":
        return plain_sentence(event, viewer=viewer, seat_names=seat_names)
    who = seat_name(event.seat, viewer=viewer, seat_names=seat_names)
    if payload is None:  # an attack or a defence: "plays them face down"
        return f"{who} played cards face down"
    kind = payload.get("type")
    if kind == "buy":
        return (
            f"{who} bought {card_name(payload.get('card'))}, discarding {cards_named(payload.get('discard'))}"
        )
    if kind == "attack":
        return f"{who} attacked with {cards_named(payload.get('cards'))}"
    if kind == "defend":
        return f"{who} defended with {cards_named(payload.get('cards'))}"
    if kind == "use":
        return _use(who, payload)
    if kind == "end_turn":
        return f"{who} passed the pistol"
    if kind == "pass":
        return f"{who} passed"
    return plain_sentence(event, viewer=viewer, seat_names=seat_names)
