"""GAME END: "The game ends immediately whenever the Rattlebones pawn and a player pawn meet or pass on
the score track. The player in the lead wins the game. In case of a tie, the player with the most
gold + stars + stock tickets wins. Otherwise, it remains a tie."""

from __future__ import annotations

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event

from . import GAME, after, roll, table


def test_scoring_onto_rattlebones_ends_the_game_at_once() -> None:
    state = table(2, dice={0: ("rattlebones", "points_5", "train", "4", "5", "6")}, scores=[50, 3],
                  gold=[1, 0])  # fmt: skip
    state = roll(state, [0, 1], [1, 0])  # 5 points and an icon still to use
    state = after(state, Event.action(0, {"type": "use_die", "die": 0}))
    assert state.scores == [55, 3]
    assert GAME.decision(state).kind == "over"
    assert GAME.legal_actions(state, 0) == []  # the icon is never used
    outcome = GAME.outcome(state)
    assert outcome.ranks == (1, 2) and outcome.scores == (55.0, 3.0) and outcome.reason == "rattlebones"


def test_passing_rattlebones_ends_the_game_too() -> None:
    state = table(2, dice={0: ("rattlebones", "points_5", "3", "4", "5", "6")}, scores=[52, 0])
    state = roll(state, [0], [1])
    assert state.scores == [57, 0] and state.phase == "over"


def test_rattlebones_meeting_a_score_marker_ends_the_game_before_the_pawn_moves() -> None:
    state = table(3, scores=[0, 59, 10])
    state = roll(state, [0], [0])  # the icon: Rattlebones 60 -> 59 meets seat 1's marker
    assert state.rattlebones == 59 and state.phase == "over"
    assert state.pawns[:3] == [0, 0, 0]  # "the game ends immediately"
    assert GAME.outcome(state).ranks == (3, 1, 2)


def test_the_gamble_die_can_end_the_game_too() -> None:
    state = table(2, dice={0: ("rattlebones", "gamble", "3", "4", "5", "6")}, scores=[0, 54])
    state = roll(state, [0], [1])
    state = after(state, Event.chance_outcome({"dice": [1]}))
    assert state.phase == "over" and GAME.outcome(state).ranks == (2, 1)


def test_a_tie_goes_to_most_gold_stars_and_stock_then_stays_a_tie() -> None:
    state = table(3, scores=[20, 20, 20], gold=[1, 0, 0], stars=[0, 1, 0], stock=[1, 0, 0], rattlebones=21)
    state = roll(state, [0], [0])
    outcome = GAME.outcome(state)
    assert outcome.ranks == (1, 2, 3)
    even = table(2, scores=[30, 30], gold=[1, 0], stars=[0, 1], rattlebones=31)
    assert GAME.outcome(roll(even, [0], [0])).ranks == (1, 1)


def test_a_finished_game_refuses_everything() -> None:
    state = roll(table(2, scores=[54, 0]), [0], [0])
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, Event.action(0, {"type": "roll", "dice": [0]}))
    assert raised.value.code == "match/over"


def test_a_forfeit_ends_the_game_with_that_seat_last() -> None:
    state = table(3, scores=[5, 30, 10])
    state = after(state, Event.forfeit(1, "left"))
    outcome = GAME.outcome(state)
    assert outcome.ranks == (2, 3, 1) and outcome.reason == "forfeit"
