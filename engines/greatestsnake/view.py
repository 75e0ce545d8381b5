"""The Greatest Snake: what each seat sees (rulebook "Order of a Turn", "The Discard Pile", "The Pit").

The snakes with their rats, equipment, ammo and glue, each hand's count, the Discard Pile and the Pit
(face up piles), a drawn rat (played face up), the stack of actions waiting to resolve: all public. A
seat's own hand is in its view only; the Deck's order in nobody's.
"""

from __future__ import annotations

from engines.greatestsnake.catalogue import CARDS, SNAKES
from engines.greatestsnake.state import SnakeState
from engines.protocol import Decision, View


def _card(card: int) -> dict | None:
    return None if card < 0 else CARDS[card].to_json()


def _snake_view(state: SnakeState, seat: int) -> dict:
    spaces = state.spaces[seat]
    body = []
    for index, card in enumerate(state.bodies[seat]):
        equipment = state.gear[seat][index]
        equipped = None
        if equipment >= 0:
            equipped = {
                **CARDS[equipment].to_json(),
                "ammo": [_card(c) for c in state.ammo.get(equipment, ())],
            }
            if CARDS[equipment].ammo:
                equipped["uses_left"] = CARDS[equipment].ammo - len(state.ammo.get(equipment, ()))
        body.append({"card": _card(card), "equipment": equipped, "rat": _card(spaces[index + 1])})
    style = SNAKES[seat]
    return {
        "seat": seat,
        "style": style.style,
        "head": {
            "card": style.head,
            "awake": state.awake[seat],
            "rat": _card(spaces[0]),
            "glue": _card(state.glue[seat]),
        },
        "body": body,
        "tail": {"card": style.tail, "rat": _card(spaces[-1])},
        "length": state.length(seat),
        "hand_count": len(state.hands[seat]),
    }


def view_of(state: SnakeState, seat: int | None, decision: Decision) -> View:
    """What `seat` sees (None: a spectator). Everything is face up but the hands, of which a seat sees
    its own only ("Draw one card from the Deck without showing it to the other players"), and the
    Deck, of which everyone sees only the count."""
    return {
        "seat": seat,
        "phase": state.phase,
        "active": state.active,
        "turn_number": state.turn_number,
        "round": (state.turn_number - 1) // state.seats + 1 if state.turn_number else 0,
        "round_limit": state.options.round_limit,
        "expansion": state.options.expansion,
        "decision": decision.to_json(),
        "snakes": [_snake_view(state, other) for other in range(state.seats)],
        # Only the seat's own hand: "Draw one card from the Deck without showing it to the other players."
        "hand": None if seat is None else [_card(card) for card in state.hands[seat]],
        "deck_count": len(state.deck),
        "discard": [_card(card) for card in state.discard],
        "pit": [_card(card) for card in state.pit],
        "drawn": _card(state.drawn),
        "stack": [
            {**entry.to_json(), "cancelled": index in state.cancelled}
            for index, entry in enumerate(state.stack)
        ],
        "passed": sorted(state.passed),
        "winners": list(state.winners),
        "end_reason": state.end_reason or None,
    }
