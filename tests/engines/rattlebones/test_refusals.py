"""Refused actions: each carries the namespaced code docs/games/rattlebones.md lists, and leaves the
state exactly as it was."""

from __future__ import annotations

import copy

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event

from . import GAME, roll, table

X2_COIN_STAR = ("rattlebones", "x2", "gold", "star", "5", "6")


def refused(state, action) -> str:
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(state.player, action))
    assert state == before
    assert GAME.legal_actions(state, state.player)  # still usable
    return raised.value.code


def test_codes_at_the_roll() -> None:
    state = table(2, gold=[1, 0])
    assert refused(state, {"type": "jump"}) == "action/unknown"
    assert refused(state, {"type": "use_die", "die": 0}) == "action/not_now"
    assert refused(state, {"type": "double", "die": 0}) == "action/not_now"
    assert refused(state, {"type": "roll"}) == "action/malformed"
    assert refused(state, {"type": "roll", "dice": 0}) == "action/malformed"
    assert refused(state, {"type": "roll", "dice": [0, 1, 2]}) == "roll/not_enough_gold"
    assert refused(state, {"type": "roll", "dice": [1, 0]}) == "roll/bad_dice"
    assert refused(state, {"type": "roll", "dice": [0.0]}) == "roll/bad_dice"


def test_codes_when_using_dice() -> None:
    state = roll(table(2, gold=[1, 0]), [0, 1], [1, 2])  # a 2 and a 3
    assert refused(state, {"type": "roll", "dice": [2]}) == "action/not_now"
    assert refused(state, {"type": "use_die", "die": 2}) == "die/not_rolled"
    assert refused(state, {"type": "use_die", "die": True}) == "die/not_rolled"
    tile = state.board[2]  # the tile placed on space 2
    legal = {"type": "use_die", "die": 0, "from": 0, "steps": 2, "replace_side": 1, "new_side": tile}
    assert legal in GAME.legal_actions(state, 0)
    for wrong in (
        {**legal, "steps": 3},  # a 2 moves exactly two
        {**legal, "from": 5},  # no pawn there
        {**legal, "replace_side": 0},  # never the icon
        {**legal, "new_side": "points_5"},  # not what the space offers
        {**legal, "extra": 1},
        {key: value for key, value in legal.items() if key != "new_side"},
        {**legal, "replace_side": True},
    ):
        assert refused(state, wrong) == "die/illegal_use", wrong


def test_codes_at_the_x2_choice() -> None:
    state = table(2, dice={slot: X2_COIN_STAR for slot in range(3)}, gold=[2, 0])
    state = roll(state, [0, 1, 2], [1, 2, 3])
    for die in (0, 1):  # the x2 and the coin; the star is then used at once
        GAME.apply(state, Event.action(0, {"type": "use_die", "die": die}))
    assert state.phase == "double"
    assert refused(state, {"type": "double", "die": 0}) == "x2/bad_die"
    assert refused(state, {"type": "use_die", "die": 1}) == "action/not_now"
