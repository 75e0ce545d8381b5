"""Step Three's choices and Step Four: continuing, bowing out, and being unable to meet the ante."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engines.errors import IllegalAction
from engines.ratsnake.state import ThrowRecord

from . import GAME, act, bow_out, bust, check, keep_going, new, roll


def test_after_rat_and_pips_the_text_lets_him_top_up_and_continue() -> None:
    # "he can increase his ante back up to six coins and continue to play, or bow out"
    state = roll(new(3), 1, 3)
    assert state.phase == "continue_or_bow_out" and state.silo == 3
    assert GAME.legal_actions(state, 0) == [{"type": "continue"}, {"type": "bow_out"}]
    state = keep_going(state)
    assert state.thrower == 0 and state.silo == 6 and state.purses[0] == 51


def test_after_rat_and_pips_the_text_lets_him_bow_out_with_his_remaining_stakes() -> None:
    state = bow_out(roll(new(3), 1, 3))
    assert state.purses[0] == 54 + 3
    assert state.thrower == 1 and state.silo == 6


def test_after_rat_and_pips_the_card_makes_him_continue_without_asking() -> None:
    state = roll(new(3, rat_and_pips="must_continue"), 4, 1)
    assert state.thrower == 0 and state.silo == 6 and state.purses[0] == 50
    assert GAME.decision(state).prompt == "side_bets"  # the next throw, not a choice


@pytest.mark.parametrize("variant", ["may_bow_out", "must_continue"])
def test_after_rat_and_pips_a_thrower_unable_to_meet_the_ante_bows_out_by_himself(variant: str) -> None:
    # Starting with exactly one ante: after a loss of 2 he has 4 in the silo and nothing in his purse.
    state = roll(new(3, starting_purse=6, rat_and_pips=variant), 1, 2)
    assert state.purses[0] == 4 and state.silo == 6 and state.thrower == 1


def test_after_a_lost_check_a_thrower_unable_to_meet_the_ante_bows_out_by_himself() -> None:
    state = check(roll(new(3, starting_purse=6), 2, 2), 1, 1)
    assert state.purses[0] == 2 and state.thrower == 1


def test_the_card_does_not_force_continuing_after_anything_but_rat_and_pips() -> None:
    state = check(roll(new(3, rat_and_pips="must_continue"), 2, 2), 1, 2)
    assert GAME.legal_actions(state, 0) == [{"type": "continue"}, {"type": "bow_out"}]


def test_a_silo_above_six_rides_whole_when_he_continues() -> None:
    state = keep_going(roll(new(3), 6, 5))
    assert state.silo == 11 and state.purses[0] == 54


def test_bowing_out_takes_the_silo_home_and_passes_the_dice_right() -> None:
    state = bow_out(roll(new(3), 6, 6))
    assert state.purses == (66, 54, 60)
    assert state.thrower == 1 and state.silo == 6


def test_every_throw_after_continuing_gets_its_own_side_bet_window() -> None:
    state = keep_going(roll(new(3), 6, 1))
    assert state.phase == "side_bets" and state.waiting == frozenset({1, 2})


def test_without_side_bets_continuing_goes_straight_to_the_throw() -> None:
    state = keep_going(roll(new(3, side_bets=False), 6, 1))
    assert GAME.decision(state).kind == "chance"


def test_the_last_seat_passes_the_dice_back_to_seat_zero() -> None:
    state = bust(bust(bust(new(3, passes=2))))
    assert state.thrower == 0 and state.turns_taken == 3


def test_continue_is_refused_when_he_cannot_meet_the_ante() -> None:
    # Normally the engine bows him out by itself; the code guards a direct call.
    state = roll(new(3), 6, 1)
    short = replace(state, silo=2, purses=(3, 60, 60))
    with pytest.raises(IllegalAction) as raised:
        keep_going(short)
    assert raised.value.code == "thrower/cannot_meet_ante"
    assert GAME.legal_actions(short, 0) == [{"type": "bow_out"}]


def test_bow_out_is_refused_when_the_card_says_he_must_continue() -> None:
    # Normally the engine continues for him; the code guards a direct call.
    state = roll(new(3, rat_and_pips="must_continue"), 6, 1)
    forced = replace(state, silo=3, last_throw=ThrowRecord(thrower=0, dice=(1, 3), result="rat_and_pips"))
    with pytest.raises(IllegalAction) as raised:
        bow_out(forced)
    assert raised.value.code == "thrower/must_continue"
    assert GAME.legal_actions(forced, 0) == [{"type": "continue"}]


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "fold"}, "action/unknown"),
        ({"type": "continue", "silo": 6}, "action/malformed"),
        ({"type": "no_bet"}, "action/not_now"),
        ({"type": "double_down", "call": "gain"}, "action/not_now"),
    ],
)
def test_the_thrower_choice_refuses_other_actions(action: dict, code: str) -> None:
    state = roll(new(3), 6, 1)
    with pytest.raises(IllegalAction) as raised:
        act(state, 0, action)
    assert raised.value.code == code


def test_only_the_thrower_chooses() -> None:
    state = roll(new(3), 6, 1)
    with pytest.raises(IllegalAction) as raised:
        act(state, 1, {"type": "bow_out"})
    assert raised.value.code == "turn/not_your_turn"
    assert GAME.legal_actions(state, 1) == []
