"""Step Two and Step Three: what a throw is called, and every row of the THROWER summary card."""

from __future__ import annotations

import pytest

from engines.ratsnake.throws import ALL_THROWS, check_call, check_total, classify, pips

from . import GAME, act, check, new, remain, roll

# Step Two: "There are six possible results" -- every one of the 36 throws, by hand.
RESULT_TABLE = """
      1               2             3             4             5             6
1 rats_eyes     rat_and_pips  rat_and_pips  rat_and_pips  rat_and_pips  snake_and_rat
2 rat_and_pips  pips_on_both  pips_on_both  pips_on_both  pips_on_both  snake_and_pips
3 rat_and_pips  pips_on_both  pips_on_both  pips_on_both  pips_on_both  snake_and_pips
4 rat_and_pips  pips_on_both  pips_on_both  pips_on_both  pips_on_both  snake_and_pips
5 rat_and_pips  pips_on_both  pips_on_both  pips_on_both  pips_on_both  snake_and_pips
6 snake_and_rat snake_and_pips snake_and_pips snake_and_pips snake_and_pips twist
"""


def table() -> list[tuple[int, int, str]]:
    rows = [line.split() for line in RESULT_TABLE.strip().splitlines()[1:]]
    return [(int(row[0]), b, name) for row in rows for b, name in enumerate(row[1:], start=1)]


@pytest.mark.parametrize(("a", "b", "result"), table())
def test_every_throw_has_its_step_two_name(a: int, b: int, result: str) -> None:
    assert classify((a, b)) == result


def test_the_table_covers_all_36_throws() -> None:
    assert sorted((a, b) for a, b, _ in table()) == sorted(ALL_THROWS)


def test_pips_on_both_total_between_four_and_ten() -> None:
    # "both dice showing pip faces totaling between four and ten"
    totals = {a + b for a, b in ALL_THROWS if classify((a, b)) == "pips_on_both"}
    assert totals == set(range(4, 11))


def test_pips_reads_the_die_that_is_not_a_rat_or_snake() -> None:
    assert pips((1, 4)) == 4 and pips((5, 6)) == 5


def test_the_check_reads_rats_as_one_and_snakes_as_six() -> None:
    assert check_total((1, 6)) == 7
    assert check_total((1, 1)) == 2
    assert check_total((6, 6)) == 12
    assert [check_call(8, total) for total in (7, 8, 9)] == ["lose", "match", "gain"]


def test_seat_zero_antes_six_and_throws_first() -> None:
    # "Step One: The current player (known as the "thrower") antes six coins."
    state = new(3)
    assert state.thrower == 0 and state.silo == 6
    assert state.purses == (54, 60, 60)


# --- the THROWER card, row by row -------------------------------------------------------------------


def test_thrower_card_two_rats_rats_eyes_silo_emptied_play_passes_to_right() -> None:
    state = roll(new(3), 1, 1)
    assert state.last_throw.result == "rats_eyes"
    assert state.purses[0] == 54 and state.silo == 0  # the silo is gone, the purse untouched
    assert state.house_net == 6
    # "The former thrower can either leave the ring or remain": asked before the dice pass.
    assert GAME.decision(state).prompt == "leave_or_remain"
    state = remain(state)
    assert state.thrower == 1 and state.silo == 6 and state.purses[1] == 54


def test_thrower_card_two_snakes_twist_pays_one_to_one_may_continue_or_pass() -> None:
    state = roll(new(3), 6, 6)
    assert state.last_throw.result == "twist"
    assert state.silo == 12 and state.house_net == -6
    assert GAME.legal_actions(state, 0) == [{"type": "continue"}, {"type": "bow_out"}]
    # the stakes ride: a second twist pays the whole silo again
    state = roll(act(state, 0, {"type": "continue"}), 6, 6)
    assert state.silo == 24 and state.purses[0] == 54


@pytest.mark.parametrize("dice", [(6, 1), (1, 6)])
def test_thrower_card_snake_and_rat_may_continue_or_pass(dice: tuple[int, int]) -> None:
    # "the thrower neither gains nor loses any coins and may continue to play or bow out."
    state = roll(new(3), *dice)
    assert state.last_throw.result == "snake_and_rat"
    assert state.silo == 6 and state.purses[0] == 54 and state.house_net == 0
    assert state.phase == "continue_or_bow_out"
    assert GAME.legal_actions(state, 0) == [{"type": "continue"}, {"type": "bow_out"}]


@pytest.mark.parametrize(("dice", "gain"), [((6, 2), 2), ((3, 6), 3), ((6, 4), 4), ((5, 6), 5)])
def test_thrower_card_snake_and_pips_silo_gains_pip_coins_may_continue_or_pass(dice, gain) -> None:
    state = roll(new(3), *dice)
    assert state.last_throw.result == "snake_and_pips"
    assert state.silo == 6 + gain and state.house_net == -gain
    assert GAME.legal_actions(state, 0) == [{"type": "continue"}, {"type": "bow_out"}]


@pytest.mark.parametrize(("dice", "loss"), [((1, 2), 2), ((3, 1), 3), ((1, 4), 4), ((5, 1), 5)])
def test_thrower_card_rat_and_pips_silo_loses_pip_coins_must_continue_play_if_possible(dice, loss) -> None:
    # The card's reading (option rat_and_pips="must_continue"): no choice is offered, the silo is
    # topped back up to six from the purse and the same thrower throws again.
    state = roll(new(3, rat_and_pips="must_continue"), *dice)
    assert state.last_throw.result == "rat_and_pips"
    assert state.house_net == loss
    assert state.thrower == 0 and state.silo == 6 and state.purses[0] == 54 - loss
    assert state.phase == "side_bets"  # straight on to the next throw


def test_thrower_card_pips_on_both_check_the_silo_lose_less_than_first_throw() -> None:
    # "Lose total of first throw, may continue or pass play" (here the loss, 4, leaves 2 in the silo)
    state = check(roll(new(3), 2, 2), 1, 2)
    assert state.last_throw.check_result == "lose"
    assert state.silo == 2 and state.house_net == 4
    assert GAME.legal_actions(state, 0) == [{"type": "continue"}, {"type": "bow_out"}]


def test_thrower_card_pips_on_both_check_the_silo_match() -> None:
    # "May continue or pass play"; the silo stays the same.
    state = check(roll(new(3), 3, 4), 2, 5)
    assert state.last_throw.check_result == "match"
    assert state.silo == 6 and state.house_net == 0
    assert GAME.legal_actions(state, 0) == [{"type": "continue"}, {"type": "bow_out"}]


def test_thrower_card_pips_on_both_check_the_silo_gain_higher_than_first_throw() -> None:
    # "Gain total of first throw, may continue or pass play"
    state = check(roll(new(3), 2, 3), 6, 1)
    assert state.last_throw.check_result == "gain"
    assert state.silo == 6 + 5 and state.house_net == -5
    # "He can either take his winnings and leave the ring or throw again."
    assert GAME.legal_actions(state, 0) == [{"type": "continue"}, {"type": "bow_out"}, {"type": "leave_ring"}]


def test_thrower_card_silo_starting_ante_six() -> None:
    from engines.ratsnake.spec import SILO_ANTE

    assert SILO_ANTE == 6
    assert new(2, starting_purse=100).silo == 6
