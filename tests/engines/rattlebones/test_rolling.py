"""ON YOUR TURN: choosing the dice to roll, paying gold for extra dice, using them in any order."""

from __future__ import annotations

import pytest

from engines.chance import ChanceRequest
from engines.errors import IllegalAction
from engines.protocol import Event

from . import GAME, act, chance, move, roll, set_up, table, use


def test_one_die_is_free_and_the_choice_is_which() -> None:
    state = set_up(2)
    assert GAME.legal_actions(state, 0) == [{"type": "roll", "dice": [0]}, {"type": "roll", "dice": [1]},
                                            {"type": "roll", "dice": [2]}]  # fmt: skip
    assert GAME.legal_actions(state, 1) == []
    rolled = act(state, {"type": "roll", "dice": [2]})
    assert GAME.decision(rolled).kind == "chance"
    assert GAME.chance_request(rolled) == ChanceRequest.dice("dice", count=1)


def test_one_gold_rolls_an_extra_die_and_two_gold_roll_all_three() -> None:
    state = table(2, gold=[2, 0])
    legal = GAME.legal_actions(state, 0)
    assert {"type": "roll", "dice": [0, 2]} in legal and {"type": "roll", "dice": [0, 1, 2]} in legal
    two = act(state, {"type": "roll", "dice": [0, 2]})
    assert two.gold == [1, 0] and two.gold_supply == 19  # the gold spent goes back to the supply
    assert GAME.chance_request(two).count == 2
    three = act(state, {"type": "roll", "dice": [0, 1, 2]})
    assert three.gold == [0, 0] and GAME.chance_request(three).count == 3


def test_extra_dice_need_gold() -> None:
    state = table(2, gold=[1, 0])
    assert {"type": "roll", "dice": [0, 1, 2]} not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, {"type": "roll", "dice": [0, 1, 2]}))
    assert raised.value.code == "roll/not_enough_gold"
    assert state.gold == [1, 0]


def test_a_roll_names_each_die_once() -> None:
    state = table(2, gold=[2, 0])
    for dice in ([0, 0], [1, 0], [3], [], [True]):
        with pytest.raises(IllegalAction):
            GAME.apply(state, Event.action(0, {"type": "roll", "dice": dice}))


def test_rolled_dice_are_used_in_the_order_of_the_players_choosing() -> None:
    state = table(2, gold=[1, 0])
    state = roll(state, [0, 1], [2, 3])  # a 3 and a 4
    dice = {action["die"] for action in GAME.legal_actions(state, 0)}
    assert dice == {0, 1}
    second_first = move(state, 1, 0, 4)
    assert second_first.phase == "use_die" and {a["die"] for a in GAME.legal_actions(second_first, 0)} == {0}
    assert move(second_first, 0, 0, 3).player == 1  # both used: the turn passes clockwise


def test_the_turn_passes_clockwise_and_round() -> None:
    state = set_up(3)
    for player in (0, 1, 2, 0):
        assert state.player == player
        state = roll(state, [0], [1])  # a 2
        state = move(state, 0, state.pawns[player * 3], 2)


def test_a_die_not_rolled_cannot_be_used() -> None:
    state = roll(set_up(2), [0], [1])
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, {"type": "use_die", "die": 1, "from": 0, "steps": 2,
                                           "replace_side": None, "new_side": None}))  # fmt: skip
    assert raised.value.code == "die/not_rolled"
    with pytest.raises(IllegalAction) as raised:
        use(state, 0, **{"from": 0, "steps": 3, "replace_side": None, "new_side": None})
    assert raised.value.code == "die/illegal_use"


def test_a_chance_outcome_is_refused_while_the_player_must_act() -> None:
    state = set_up(2)
    with pytest.raises(IllegalAction) as raised:
        chance(state, {"dice": [1]})
    assert raised.value.code == "chance/not_expected"
