"""Hidden information: there is none beyond future chance, so every seat sees what a spectator sees."""

from __future__ import annotations

import json
import random

import pytest

from engines.chance import draw
from engines.protocol import Event

from . import GAME, roll, table


def states_of_a_game(seats: int, seed: int):
    rng = random.Random(seed)
    state = GAME.new_state(seats=seats)
    seq = 0
    while GAME.decision(state).kind != "over":
        yield state
        decision = GAME.decision(state)
        if decision.kind == "chance":
            event = Event.chance_outcome(draw(f"views/{seed}".encode(), seq, GAME.chance_request(state)))
        else:
            event = Event.action(state.player, rng.choice(GAME.legal_actions(state, state.player)))
        GAME.apply(state, event)
        seq += 1
    yield state


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_every_seat_sees_what_the_spectator_sees(seats: int) -> None:
    assert GAME.spec.has_hidden_information is False
    for state in states_of_a_game(seats, seats):
        spectator = GAME.view(state, None)
        assert json.loads(json.dumps(spectator)) == spectator
        for seat in range(seats):
            assert GAME.view(state, seat) == spectator


def test_no_event_is_hidden_from_anyone() -> None:
    state = table(2)
    assert GAME.event_audience(state, Event.action(0, {"type": "roll", "dice": [0]})) is None
    assert GAME.event_audience(state, Event.chance_outcome({"dice": [3]})) is None
    fresh = GAME.new_state(seats=2)
    assert GAME.event_audience(fresh, Event.chance_outcome({"permutation": list(range(12))})) is None


def test_the_view_shows_the_dice_the_pieces_and_the_turn() -> None:
    state = table(
        2, dice={0: ("rattlebones", "arrow_to_2", "train", "4", "5", "6")}, gold=[1, 0], stars=[0, 2]
    )
    state = roll(state, [0, 1], [1, 3])
    view = GAME.view(state, None)
    assert view["player"] == 0 and view["phase"] == "use_die"
    assert view["players"][0]["dice"][0] == ["rattlebones", "arrow_to_2", "train", "4", "5", "6"]
    assert view["players"][1]["stars"] == 2 and view["players"][0]["gold"] == 0
    assert view["turn"]["showing"] == [
        {"die": 0, "side": 1, "face": "arrow_to_2", "acts_as": "train"},
        {"die": 1, "side": 3, "face": "4", "acts_as": "4"},
    ]
    assert view["turn"]["rolled"] == [0, 1]
    assert view["rattlebones"] == 55 and view["train"]["points"] == 0
    assert view["supply"]["gold"] == 20 and view["supply"]["sides"]["arrow"] == 14
    assert view["decision"] == {"kind": "turn", "seats": [0], "prompt": "use_die"}
    assert view["outcome"] is None
