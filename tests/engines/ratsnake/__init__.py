"""Rat-Snake engine tests, one file per rule area. The helpers below drive a state through events
exactly as the service would (`Game.apply`), so every test also exercises the protocol checks. Each
returns the state after the event as a new state (a clone advanced in place), so a test may keep
the state before it and compare."""

from __future__ import annotations

from typing import Any

from engines.protocol import Event
from engines.ratsnake import GAME
from engines.ratsnake.state import RatSnakeState


def new(seats: int = 3, **options: Any) -> RatSnakeState:
    return GAME.new_state(seats=seats, options=options)


def after(state: RatSnakeState, event: Event) -> RatSnakeState:
    """The state after `event`, leaving `state` as it was."""
    following = state.clone()
    GAME.apply(following, event)
    return following


def act(state: RatSnakeState, seat: int, action: dict[str, Any]) -> RatSnakeState:
    return after(state, Event.action(seat, action))


def no_bets(state: RatSnakeState) -> RatSnakeState:
    """Every seat still asked in an open side-bet window answers "no bet"."""
    while state.phase == "side_bets":
        state = act(state, min(state.waiting), {"type": "no_bet"})
    return state


def bet(state: RatSnakeState, seat: int, prediction: str, stake: int) -> RatSnakeState:
    return act(state, seat, {"type": "side_bet", "prediction": prediction, "stake": stake})


def roll(state: RatSnakeState, a: int, b: int) -> RatSnakeState:
    """Close any side-bet window with "no bet" from whoever is left, then throw a and b."""
    state = no_bets(state)
    return after(state, Event.chance_outcome({"dice": [a, b]}))


def bust(state: RatSnakeState) -> RatSnakeState:
    """Rat's eyes: the silo is lost, the former thrower remains in the ring, and the dice pass."""
    return remain(roll(state, 1, 1))


def remain(state: RatSnakeState) -> RatSnakeState:
    assert state.phase == "leave_or_remain", state.phase
    return act(state, state.thrower, {"type": "remain"})


def check(state: RatSnakeState, a: int, b: int) -> RatSnakeState:
    assert state.phase == "check_the_silo", state.phase
    return after(state, Event.chance_outcome({"dice": [a, b]}))


def keep_going(state: RatSnakeState) -> RatSnakeState:
    return act(state, state.thrower, {"type": "continue"})


def bow_out(state: RatSnakeState) -> RatSnakeState:
    return act(state, state.thrower, {"type": "bow_out"})


def wealth(state: RatSnakeState) -> int:
    """Every coin on the table: purses, the silo and wagers riding, plus the house's net."""
    return sum(state.purses) + state.silo + sum(b.stake for b in state.bets) + state.house_net
