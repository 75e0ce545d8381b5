"""SIDE BETS against a house ("In gambling dens, the players compete against a house who covers the
wagering"): every row of the SIDE BETS card, the double-down, and what a bet may be."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engines.errors import IllegalAction
from engines.protocol import Event
from engines.ratsnake.state import SettledBet

from . import GAME, act, after, bet, check, new, no_bets, remain, roll, wealth


def one_bet(prediction: str, stake: int, dice: tuple[int, int], **options):
    state = bet(new(3, **options), 1, prediction, stake)
    assert state.purses[1] == 60 - stake  # "A stake leaves the purse when the bet is placed"
    return roll(state, *dice)


def settled_of(state, seat: int) -> SettledBet:
    return next(item for item in state.settled if item.seat == seat)


# --- the SIDE BETS card, row by row -------------------------------------------------------------------


def test_side_bets_card_two_rats_rats_out_pays_three_to_one() -> None:
    state = one_bet("rats_out", 2, (1, 1))
    assert settled_of(state, 1) == SettledBet(1, "rats_out", 2, None, "won", 2 + 6)
    assert state.house_net == 6 - 6  # the thrower's silo in, the bettor's winnings out
    state = remain(state)
    assert state.thrower == 1 and state.purses[1] == 60 + 6 - 6  # seat 1 now antes as thrower


def test_side_bets_card_two_snakes_twists_a_win_pays_three_to_one() -> None:
    state = one_bet("twists_a_win", 2, (6, 6))
    assert settled_of(state, 1).result == "won" and state.purses[1] == 66
    assert state.house_net == -6 - 6


@pytest.mark.parametrize("dice", [(6, 1), (1, 6)])
def test_side_bets_card_snake_and_rat_guards_the_grain_pays_three_to_one(dice) -> None:
    state = one_bet("guards_the_grain", 3, dice)
    assert state.purses[1] == 60 + 9 and state.house_net == -9


def test_side_bets_card_snake_and_pips_fills_the_silo_pays_two_to_one() -> None:
    state = one_bet("fills_the_silo", 3, (6, 4))
    assert state.purses[1] == 60 + 6 and state.house_net == -4 - 6


def test_side_bets_card_rat_and_pips_loses_grain_pays_two_to_one() -> None:
    state = one_bet("loses_grain", 3, (2, 1))
    assert state.purses[1] == 60 + 6 and state.house_net == 2 - 6


def test_side_bets_card_pips_on_both_check_the_silo_pays_nothing_and_must_double_down() -> None:
    state = one_bet("check_the_silo", 2, (3, 5))
    assert state.phase == "double_down"
    assert GAME.decision(state).seats == frozenset({1})
    assert state.purses[1] == 58 and state.settled == ()  # nothing paid on the first throw
    assert GAME.legal_actions(state, 1) == [
        {"type": "double_down", "call": "match"},
        {"type": "double_down", "call": "lose"},
        {"type": "double_down", "call": "gain"},
    ]
    state = act(state, 1, {"type": "double_down", "call": "gain"})
    assert state.purses[1] == 56 and state.bet_of(1).stake == 4  # the second stake leaves the purse
    assert state.phase == "check_the_silo"


def test_side_bets_card_double_down_match_pays_four_to_one() -> None:
    state = act(one_bet("check_the_silo", 2, (3, 4)), 1, {"type": "double_down", "call": "match"})
    state = check(state, 2, 5)
    assert settled_of(state, 1) == SettledBet(1, "check_the_silo", 4, "match", "won", 4 + 16)
    assert state.purses[1] == 56 + 20 and state.house_net == -16


def test_side_bets_card_double_down_lose_less_than_first_throw_pays_two_to_one() -> None:
    state = act(one_bet("check_the_silo", 2, (4, 4)), 1, {"type": "double_down", "call": "lose"})
    state = check(state, 2, 3)
    assert settled_of(state, 1) == SettledBet(1, "check_the_silo", 4, "lose", "won", 4 + 8)
    assert state.house_net == 6 - 8  # the thrower lost his whole silo of six; the bettor won eight
    assert state.thrower == 1 and state.purses[1] == 56 + 12 - 6  # seat 1 now antes as thrower


def test_side_bets_card_double_down_gain_higher_than_first_throw_pays_two_to_one() -> None:
    state = act(one_bet("check_the_silo", 2, (3, 5)), 1, {"type": "double_down", "call": "gain"})
    state = check(state, 4, 5)
    assert state.purses[1] == 56 + 4 + 8
    assert state.house_net == -8 - 8


# --- losing, and more than one bettor ---------------------------------------------------------------


def test_a_wrong_prediction_loses_its_stake_to_the_house() -> None:
    state = one_bet("rats_out", 3, (6, 3))
    assert settled_of(state, 1) == SettledBet(1, "rats_out", 3, None, "lost", 0)
    assert state.purses[1] == 57 and state.house_net == 3 - 3


def test_a_wrong_double_down_call_loses_both_stakes() -> None:
    state = act(one_bet("check_the_silo", 3, (3, 5)), 1, {"type": "double_down", "call": "lose"})
    state = check(state, 4, 5)
    assert settled_of(state, 1).result == "lost" and state.purses[1] == 54
    assert state.house_net == 6 - 8


def test_a_check_bet_loses_when_the_throw_is_not_pips_on_both() -> None:
    state = one_bet("check_the_silo", 2, (6, 1))
    assert settled_of(state, 1).result == "lost" and state.purses[1] == 58


def test_other_bets_lose_at_once_on_pips_on_both_while_check_bets_ride() -> None:
    state = bet(bet(new(3), 1, "check_the_silo", 2), 2, "fills_the_silo", 5)
    state = roll(state, 2, 2)
    assert [item.seat for item in state.settled] == [2] and state.settled[0].result == "lost"
    assert [b.seat for b in state.bets] == [1] and state.phase == "double_down"
    state = check(act(state, 1, {"type": "double_down", "call": "gain"}), 3, 3)
    assert [item.seat for item in state.settled] == [2, 1]  # the whole throw's settlement


def test_several_bettors_are_settled_each_against_the_house() -> None:
    state = bet(bet(new(4), 1, "loses_grain", 4), 3, "loses_grain", 1)
    state = roll(state, 1, 5)
    assert state.purses[1] == 60 + 8 and state.purses[3] == 60 + 2 and state.purses[2] == 60
    assert state.house_net == 5 - 10


def test_coins_are_neither_made_nor_lost_with_the_house_counted() -> None:
    state = bet(bet(new(3), 1, "check_the_silo", 6), 2, "twists_a_win", 6)
    state = roll(state, 5, 5)
    state = check(act(state, 1, {"type": "double_down", "call": "lose"}), 1, 2)
    assert wealth(state) == 180


# --- what a bet may be --------------------------------------------------------------------------------


def test_the_window_asks_every_non_thrower_with_coins_and_not_the_thrower() -> None:
    state = new(4)
    decision = GAME.decision(state)
    assert decision.kind == "simultaneous" and decision.prompt == "side_bets"
    assert decision.seats == frozenset({1, 2, 3})
    assert GAME.legal_actions(state, 0) == []


def test_a_seat_with_an_empty_purse_is_not_asked() -> None:
    state = replace(new(3, side_bets=False), purses=(54, 0, 60))
    state = replace(state, options=replace(state.options, side_bets=True))
    state = after(state, Event.chance_outcome({"dice": [6, 1]}))
    state = act(state, 0, {"type": "continue"})
    assert state.waiting == frozenset({2})


def test_with_nobody_able_to_bet_there_is_no_window() -> None:
    state = replace(new(2, side_bets=False), purses=(54, 0))
    state = replace(state, options=replace(state.options, side_bets=True))
    state = act(after(state, Event.chance_outcome({"dice": [6, 1]})), 0, {"type": "continue"})
    assert GAME.decision(state).kind == "chance"


def test_side_bets_off_means_no_window() -> None:
    assert GAME.decision(new(3, side_bets=False)).kind == "chance"


def test_legal_actions_list_every_prediction_and_stake_and_no_bet() -> None:
    # The rulebook caps no stake: up to the purse (60), a check bet up to half of it (it must double).
    actions = GAME.legal_actions(new(3), 1)
    assert actions[0] == {"type": "no_bet"}
    assert len(actions) == 1 + 5 * 60 + 30
    assert {"type": "side_bet", "prediction": "rats_out", "stake": 60} in actions
    assert {"type": "side_bet", "prediction": "check_the_silo", "stake": 30} in actions
    assert {"type": "side_bet", "prediction": "check_the_silo", "stake": 31} not in actions
    # A house rule may cap the first stake.
    capped = GAME.legal_actions(new(3, max_side_bet=6), 1)
    assert len(capped) == 1 + 6 * 6
    assert {"type": "side_bet", "prediction": "check_the_silo", "stake": 6} in capped


def test_a_check_bet_needs_a_purse_that_covers_the_double_down() -> None:
    state = replace(new(3), purses=(54, 5, 60))
    stakes = {a["stake"] for a in GAME.legal_actions(state, 1) if a.get("prediction") == "check_the_silo"}
    assert stakes == {1, 2}
    with pytest.raises(IllegalAction) as raised:
        bet(state, 1, "check_the_silo", 3)
    assert raised.value.code == "bet/stake_out_of_range"
    assert bet(state, 1, "rats_out", 5).purses[1] == 0


@pytest.mark.parametrize("stake", [0, -1, 61, True, "3", 2.0, None])
def test_a_stake_out_of_range_is_refused(stake) -> None:
    with pytest.raises(IllegalAction) as raised:
        act(new(3), 1, {"type": "side_bet", "prediction": "rats_out", "stake": stake})
    assert raised.value.code == "bet/stake_out_of_range"


def test_a_house_cap_refuses_a_larger_stake() -> None:
    with pytest.raises(IllegalAction) as raised:
        act(new(3, max_side_bet=6), 1, {"type": "side_bet", "prediction": "rats_out", "stake": 7})
    assert raised.value.code == "bet/stake_out_of_range"


def test_max_side_bet_caps_the_first_stake() -> None:
    state = new(3, max_side_bet=20)
    assert bet(state, 1, "rats_out", 20).purses[1] == 40
    with pytest.raises(IllegalAction):
        bet(state, 1, "rats_out", 21)


@pytest.mark.parametrize("prediction", ["rat_out", "match", "", None, "Rats_Out"])
def test_an_unknown_prediction_is_refused(prediction) -> None:
    with pytest.raises(IllegalAction) as raised:
        act(new(3), 1, {"type": "side_bet", "prediction": prediction, "stake": 1})
    assert raised.value.code == "bet/bad_prediction"


def test_one_answer_per_seat_per_throw() -> None:
    state = bet(new(3), 1, "rats_out", 1)
    with pytest.raises(IllegalAction) as raised:  # through the protocol: no longer among the deciders
        bet(state, 1, "twists_a_win", 1)
    assert raised.value.code == "turn/not_your_turn"
    with pytest.raises(IllegalAction) as raised:  # the engine's own guard
        GAME.apply_action(state, 1, {"type": "no_bet"})
    assert raised.value.code == "bet/already_placed"


def test_a_bad_double_down_call_is_refused() -> None:
    state = one_bet("check_the_silo", 1, (2, 2))
    with pytest.raises(IllegalAction) as raised:
        act(state, 1, {"type": "double_down", "call": "higher"})
    assert raised.value.code == "double_down/bad_call"


def test_only_check_bettors_double_down() -> None:
    state = bet(bet(new(3), 1, "check_the_silo", 1), 2, "rats_out", 1)
    state = roll(state, 2, 2)
    with pytest.raises(IllegalAction) as raised:
        act(state, 2, {"type": "double_down", "call": "gain"})
    assert raised.value.code == "turn/not_your_turn"


def test_the_check_waits_for_every_double_down() -> None:
    state = bet(bet(new(3), 1, "check_the_silo", 1), 2, "check_the_silo", 2)
    state = act(roll(state, 2, 2), 2, {"type": "double_down", "call": "gain"})
    assert state.phase == "double_down" and state.waiting == frozenset({1})
    state = act(state, 1, {"type": "double_down", "call": "match"})
    assert state.phase == "check_the_silo"


def test_no_bet_changes_nothing_but_the_window() -> None:
    state = no_bets(new(3))
    assert state.purses == (54, 60, 60) and state.bets == ()
