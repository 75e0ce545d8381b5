"""Step Three, "If the result was two dice with pips on both faces": checking the silo."""

from __future__ import annotations

from engines.chance import ChanceRequest

from . import GAME, act, bet, check, keep_going, new, roll


def test_the_gray_mouser_worked_example_three_and_five_then_four_and_five_wins_eight() -> None:
    # "the Gray Mouser rolls a 3 and a 5 on his first throw, resulting in a total of 8. He must check
    # the silo and rolls again, throwing a 4 and a 5 for a result of 9. He wins eight coins, an
    # amount equal to his first throw, adding the coins to his silo."
    state = roll(new(3), 3, 5)
    assert state.phase == "check_the_silo"
    assert state.last_throw.first_total == 8
    state = check(state, 4, 5)
    assert state.silo == 6 + 8
    # "He can either take his winnings and leave the ring or throw again, starting a new round."
    # (Bowing out, passing the dice and staying in the ring, is open to him as after any throw.)
    assert GAME.legal_actions(state, 0) == [{"type": "continue"}, {"type": "bow_out"}, {"type": "leave_ring"}]


def test_the_check_is_thrown_at_once_with_no_choice_and_no_side_bets() -> None:
    # "the thrower must immediately roll again": a chance decision, not the thrower's, and no window.
    state = roll(new(3), 2, 5)
    decision = GAME.decision(state)
    assert decision.kind == "chance" and decision.prompt == "check_the_silo"
    assert GAME.chance_request(state) == ChanceRequest.dice("check_the_silo", count=2)
    assert all(GAME.legal_actions(state, seat) == [] for seat in range(3))


def test_a_rat_in_the_check_counts_one_and_a_snake_six_without_cancelling() -> None:
    # First 2+2 = 4; a check of rat and snake is 1+6 = 7, a gain, not "snake eats rat".
    state = check(roll(new(3), 2, 2), 1, 6)
    assert state.last_throw.check_result == "gain" and state.silo == 10


def test_two_rats_in_the_check_are_a_two_not_rats_eyes() -> None:
    state = check(roll(new(3), 2, 3), 1, 1)
    assert state.last_throw.check_result == "lose"
    assert state.silo == 1 and state.phase == "continue_or_bow_out"


def test_two_snakes_in_the_check_are_a_twelve_not_a_twist() -> None:
    state = check(roll(new(3), 5, 5), 6, 6)
    assert state.last_throw.check_result == "gain"
    assert state.silo == 6 + 10  # the first total, not the silo again


def test_a_lost_check_never_takes_more_than_the_silo_and_an_empty_silo_is_out() -> None:
    # "loses a number of coins equal to the first throw (not to exceed his silo). If his silo is
    # reduced to zero, he is out."
    state = check(roll(new(3), 5, 5), 2, 3)
    assert state.house_net == 6  # not 10
    assert state.thrower == 1 and state.purses[0] == 54


def test_after_a_lost_check_continuing_raises_the_stakes_back_to_six() -> None:
    state = check(roll(new(3), 2, 3), 1, 2)
    assert state.silo == 1
    state = keep_going(state)
    assert state.silo == 6 and state.purses[0] == 54 - 5


def test_a_lost_check_can_take_part_of_a_larger_silo() -> None:
    state = roll(new(3), 6, 6)  # silo 12
    state = check(roll(keep_going(state), 4, 5), 2, 2)  # lose 9
    assert state.silo == 3 and state.phase == "continue_or_bow_out"


def test_the_check_is_settled_against_the_first_total_even_with_bets_riding() -> None:
    state = bet(new(3), 1, "check_the_silo", 1)
    state = roll(state, 4, 4)
    state = act(state, 1, {"type": "double_down", "call": "gain"})
    state = check(state, 6, 3)
    assert state.last_throw.check_result == "gain" and state.silo == 14
