"""Rat-Snake's log in sentences (`Game.describe_event`), in the rulebook's words: the rat on the
one, the snake on the six, the silo, and the side bets as the SIDE BETS card prints them."""

from __future__ import annotations

from collections.abc import Sequence

from engines.describe import counted, listed, plain_sentence, seat_name
from engines.protocol import Event
from engines.ratsnake.throws import RAT, SNAKE

# 'wager the thrower will either "rat out," "twist a win," "guard the grain," "fill the silo,"
# "lose his grain," or "check the silo."'
PREDICTION_WORDS = {
    "rats_out": "rats out",
    "twists_a_win": "twists a win",
    "guards_the_grain": "guards the grain",
    "fills_the_silo": "fills the silo",
    "loses_grain": "loses his grain",
    "check_the_silo": "checks the silo",
}
# The check's three calls: 'either a "match," "lose," or "gain."'
CALL_WORDS = {"match": "a match", "lose": "a lose", "gain": "a gain"}
PLAIN_ACTIONS = {
    "no_bet": "made no side bet",
    "continue": "threw again",
    "bow_out": "bowed out with the silo",
    "leave_ring": "left the ring",
    "remain": "stayed in the ring",
}


def face(value: int) -> str:
    """A die's face as the rulebook names it: the rat on the one, the snake on the six."""
    return "a rat" if value == RAT else "a snake" if value == SNAKE else f"a {value}"


def describe_event(event: Event, *, viewer: int | None, seat_names: Sequence[str]) -> str:
    payload = event.payload
    if event.kind == "chance":
        dice = (payload or {}).get("dice")
        if isinstance(dice, list):
            return f"the dice show {listed([face(value) for value in dice])}"
        return plain_sentence(event, viewer=viewer, seat_names=seat_names)
    if event.kind != "action":
        return plain_sentence(event, viewer=viewer, seat_names=seat_names)
    who = seat_name(event.seat, viewer=viewer, seat_names=seat_names)
    if payload is None:  # a side bet, no bet or double-down call, face down until the match ends
        return f"{who} answered the side bets face down"
    kind = payload.get("type")
    if kind == "side_bet" and payload.get("prediction") in PREDICTION_WORDS:
        stake = counted(payload.get("stake", 0), "coin")
        return f"{who} bet {stake} that the thrower {PREDICTION_WORDS[payload['prediction']]}"
    if kind == "double_down" and payload.get("call") in CALL_WORDS:
        return f"{who} doubled down, calling {CALL_WORDS[payload['call']]}"
    if kind in PLAIN_ACTIONS:
        return f"{who} {PLAIN_ACTIONS[kind]}"
    return plain_sentence(event, viewer=viewer, seat_names=seat_names)
