"""The bots: the generic random one and the Rat-Snake heuristic, which plays by exact expected value."""

from __future__ import annotations

import random
import statistics
from dataclasses import replace
from fractions import Fraction

import pytest

from engines.bots import RandomBot
from engines.chance import draw
from engines.protocol import Event, Turn
from engines.ratsnake.bots import HeuristicBot, best_call, next_throw_value, right_chance, side_bet_value

from . import GAME, bet, new, roll

HEURISTIC = HeuristicBot()


def choose(state, seat: int):
    return HEURISTIC.act(Turn(GAME, state, seat), random.Random(0))


def session(bots, seed: int, options=None):
    """A whole session, every seat played by its bot from its own view, chance drawn from a seed."""
    rng = random.Random(seed)
    state = GAME.new_state(seats=len(bots), options=options)
    seq = 0
    while (decision := GAME.decision(state)).kind != "over":
        if decision.kind == "chance":
            event = Event.chance_outcome(draw(f"bots/{seed}".encode(), seq, GAME.chance_request(state)))
        else:
            seat = min(decision.seats)
            legal = GAME.legal_actions(state, seat)
            action = bots[seat].act(Turn(GAME, state, seat), rng)
            assert action in legal
            event = Event.action(seat, action)
        GAME.apply(state, event)
        seq += 1
    return state


def test_the_game_offers_a_random_and_a_heuristic_bot() -> None:
    bots = GAME.bots()
    assert set(bots) == {"random", "heuristic"}
    assert bots["heuristic"].name == "heuristic" and bots["random"].name == "random"


# --- the sums the heuristic plays by ------------------------------------------------------------------


def test_a_throw_is_worth_making_only_with_a_silo_of_six() -> None:
    # A lost check of 7 to 10 costs at most the six in the silo; beyond six every throw loses.
    assert next_throw_value(6) == Fraction(37, 648)
    assert next_throw_value(7) == Fraction(-131, 1296)
    assert all(next_throw_value(silo) < 0 for silo in range(7, 40))
    assert next_throw_value(10) == next_throw_value(30)  # no first total exceeds ten


def test_a_throw_is_worth_less_when_the_others_cannot_pay() -> None:
    assert next_throw_value(6, lambda amount: 0) < 0
    assert next_throw_value(6, lambda amount: amount) == next_throw_value(6)


def test_against_the_house_only_the_check_bet_pays() -> None:
    assert side_bet_value("check_the_silo") == Fraction(19, 108)
    assert side_bet_value("rats_out") == side_bet_value("twists_a_win") == Fraction(-8, 9)
    assert side_bet_value("guards_the_grain") == Fraction(-7, 9)
    assert side_bet_value("fills_the_silo") == side_bet_value("loses_grain") == Fraction(-1, 3)


def test_the_check_bet_is_also_the_prediction_most_often_right() -> None:
    assert max(["rats_out", "twists_a_win", "guards_the_grain", "fills_the_silo", "loses_grain",
                "check_the_silo"], key=right_chance) == "check_the_silo"  # fmt: skip
    assert right_chance("check_the_silo") == Fraction(175, 648)


@pytest.mark.parametrize(
    ("first_total", "call"),
    [(4, "gain"), (5, "gain"), (6, "gain"), (7, "gain"), (8, "lose"), (9, "lose"), (10, "lose")],
)
def test_the_best_double_down_call_for_each_first_total(first_total: int, call: str) -> None:
    assert best_call(first_total, house=True) == call
    assert best_call(first_total, house=False) == call


# --- the heuristic at the table ---------------------------------------------------------------------------


def test_it_keeps_throwing_a_silo_of_six() -> None:
    state = roll(new(3), 6, 1)
    assert choose(state, 0) == {"type": "continue"}


def test_it_takes_its_winnings_and_passes() -> None:
    assert choose(roll(new(3), 6, 6), 0) == {"type": "bow_out"}
    assert choose(roll(new(3), 6, 2), 0) == {"type": "bow_out"}


def test_it_tops_up_after_a_small_loss() -> None:
    assert choose(roll(new(3), 1, 2), 0) == {"type": "continue"}


def test_it_will_not_put_more_than_half_its_coins_in_the_silo() -> None:
    state = roll(new(3, starting_purse=10), 6, 1)  # silo 6, purse 4
    assert choose(state, 0) == {"type": "bow_out"}
    state = roll(new(3, starting_purse=12), 6, 1)  # silo 6, purse 6
    assert choose(state, 0) == {"type": "continue"}


def test_without_a_house_it_counts_only_what_the_others_can_pay() -> None:
    state = replace(roll(new(3, house=False, side_bets=False), 6, 1), purses=(54, 0, 0))
    assert choose(state, 0) == {"type": "bow_out"}  # wins are worth nothing, losses still cost


def test_against_the_house_it_bets_a_small_stake_on_the_check() -> None:
    assert choose(new(3), 1) == {"type": "side_bet", "prediction": "check_the_silo", "stake": 2}
    assert choose(replace(new(3), purses=(54, 3, 60)), 1) == {
        "type": "side_bet", "prediction": "check_the_silo", "stake": 1,
    }  # fmt: skip
    assert choose(replace(new(3), purses=(54, 1, 60)), 1) == {"type": "no_bet"}


def test_without_a_house_it_bets_one_coin_on_the_likeliest_prediction() -> None:
    assert choose(new(3, house=False), 1) == {"type": "side_bet", "prediction": "check_the_silo", "stake": 1}


def test_without_a_house_and_nobody_else_to_bet_it_does_not_bet() -> None:
    # Alone in the window there is no pot to win: a wager can only come back.
    assert choose(new(2, house=False), 1) == {"type": "no_bet"}


@pytest.mark.parametrize(("dice", "call"), [((2, 2), "gain"), ((4, 3), "gain"), ((5, 4), "lose")])
def test_it_calls_the_check_by_the_first_total(dice, call) -> None:
    state = roll(bet(new(3), 1, "check_the_silo", 1), *dice)
    assert choose(state, 1) == {"type": "double_down", "call": call}


@pytest.mark.parametrize(
    "options", [None, {"house": False}, {"rat_and_pips": "must_continue", "max_side_bet": 50}]
)
def test_every_heuristic_action_is_legal(options) -> None:
    for seed in range(15):
        final = session([HEURISTIC] * (2 + seed % 7), seed, options)
        assert GAME.outcome(final) is not None


def mixed_tables(sessions: int, seats: int, options=None) -> tuple[float, float]:
    """Average final purse of heuristic and random seats; seats alternate, and swap every session."""
    heuristic, rand = [], []
    for seed in range(sessions):
        is_heuristic = [(seat + seed) % 2 == 0 for seat in range(seats)]
        bots = [HEURISTIC if flag else RandomBot() for flag in is_heuristic]
        purses = session(bots, seed, options).purses
        heuristic += [p for p, flag in zip(purses, is_heuristic) if flag]
        rand += [p for p, flag in zip(purses, is_heuristic) if not flag]
    return statistics.mean(heuristic), statistics.mean(rand)


def test_the_heuristic_ends_richer_than_the_random_bot_against_the_house() -> None:
    heuristic, rand = mixed_tables(300, 4)
    assert heuristic > 60 > rand
    assert heuristic - rand > 10


def test_the_heuristic_ends_richer_than_the_random_bot_without_a_house() -> None:
    heuristic, rand = mixed_tables(200, 4, {"house": False})
    assert heuristic > rand + 5
