"""Rat-Snake: the heuristic bot (rulebook "PLAYING RAT-SNAKE" and "SIDE BETS").

It plays from its view and its legal actions only, like any client of the API, and decides by exact
expected values: every one of the 36 throws and, after pips on both dice, every one of the 36 checks,
with losses capped at the silo ("not to exceed his silo") and, without a house, winnings capped by
what the other players can actually pay.

What the sums show (with a house): throwing with a silo of exactly six is worth +74/1296 of a coin,
because a lost check of 7 to 10 costs only the six in the silo; with a silo of seven or more every
throw loses money. Of the side bets only "check the silo" is worth making (+0.18 per coin of first
stake with the best double-down call); all the others lose to the house.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from functools import cache

from engines.protocol import Action, Bot, Turn, View
from engines.ratsnake import money
from engines.ratsnake.spec import SILO_ANTE
from engines.ratsnake.throws import (
    ALL_THROWS,
    CHECK_THE_SILO,
    DOUBLE_DOWN_ODDS,
    GAIN,
    LOSE,
    MATCH,
    PIPS_ON_BOTH,
    PREDICTION_OF_RESULT,
    PREDICTIONS,
    RAT_AND_PIPS,
    RATS_EYES,
    SIDE_BET_ODDS,
    SNAKE_AND_PIPS,
    TWIST,
    check_call,
    check_total,
    classify,
    pips,
)

# Take profits: the edge is at best 74/1296 of a coin per throw, while a rat's eyes takes the whole
# silo. The bot never keeps more than half of its coins in the silo (silo <= what stays in its purse),
# a crude Kelly-style cap that stops it from betting the farm on a tiny edge.
MAX_SILO_SHARE = Fraction(1, 2)
# A small stake: about a thirtieth of the purse, at least one coin (a check bet then risks 2 of 30).
STAKE_DIVISOR = 30


@cache
def call_chances(first_total: int) -> dict[str, Fraction]:
    """The chance of each double-down call being right, given the first total (all 36 checks)."""
    counts = {MATCH: 0, LOSE: 0, GAIN: 0}
    for check in ALL_THROWS:
        counts[check_call(first_total, check_total(check))] += 1
    return {call: Fraction(count, len(ALL_THROWS)) for call, count in counts.items()}


def call_value(first_total: int, call: str, *, house: bool) -> Fraction:
    """Expected coins per coin staked on `call`; without a house only the chance of being right counts."""
    chance = call_chances(first_total)[call]
    if not house:
        return chance
    return chance * DOUBLE_DOWN_ODDS[call] - (1 - chance)


@cache
def best_call(first_total: int, *, house: bool) -> str:
    # Ties (a first total of 7: gain and lose are equally likely) go to the first of gain, lose, match.
    return max((GAIN, LOSE, MATCH), key=lambda call: call_value(first_total, call, house=house))


@cache
def side_bet_value(prediction: str) -> Fraction:
    """Expected coins per coin of first stake for a side bet against the house."""
    total = Fraction(0)
    for dice in ALL_THROWS:
        predicted = PREDICTION_OF_RESULT[classify(dice)]
        if predicted != prediction:
            total -= 1
        elif prediction == CHECK_THE_SILO:
            # The stake doubles, then the best call is made knowing the first total.
            first_total = sum(dice)
            total += 2 * call_value(first_total, best_call(first_total, house=True), house=True)
        else:
            total += SIDE_BET_ODDS[prediction]
    return total / len(ALL_THROWS)


@cache
def right_chance(prediction: str) -> Fraction:
    """How often a side bet is right, counting the best double-down call for a check bet."""
    total = Fraction(0)
    for dice in ALL_THROWS:
        if PREDICTION_OF_RESULT[classify(dice)] != prediction:
            continue
        if prediction == CHECK_THE_SILO:
            first_total = sum(dice)
            total += call_chances(first_total)[best_call(first_total, house=False)]
        else:
            total += 1
    return total / len(ALL_THROWS)


@cache
def _throw_table() -> tuple[tuple[str, int, int], ...]:
    """The 36 throws and, under pips on both, the 36 checks of each, folded into
    (what happens, amount, ways out of 36 * 36): "win"/"lose" an amount, or "lose_silo"."""
    ways: dict[tuple[str, int], int] = {}

    def add(kind: str, amount: int, count: int) -> None:
        ways[(kind, amount)] = ways.get((kind, amount), 0) + count

    for dice in ALL_THROWS:
        result = classify(dice)
        if result == RATS_EYES:
            add("lose_silo", 0, 36)
        elif result == TWIST:
            add("win_silo", 0, 36)
        elif result == SNAKE_AND_PIPS:
            add("win", pips(dice), 36)
        elif result == RAT_AND_PIPS:
            add("lose", pips(dice), 36)
        elif result == PIPS_ON_BOTH:
            first_total = sum(dice)
            for check in ALL_THROWS:
                call = check_call(first_total, check_total(check))
                if call != MATCH:
                    add("win" if call == GAIN else "lose", first_total, 1)
    return tuple((kind, amount, count) for (kind, amount), count in sorted(ways.items()))


def next_throw_value(silo: int, paid: Callable[[int], int] | None = None) -> Fraction:
    """The exact expected change of the thrower's coins from one more throw with `silo` at stake.

    `paid(amount)` is what a win of `amount` really brings (all of it with a house); a loss never
    exceeds the silo ("not to exceed his silo").
    """
    total = 0
    for kind, amount, count in _throw_table():
        if kind == "lose_silo":
            total -= silo * count
        elif kind == "lose":
            total -= min(amount, silo) * count
        else:
            won = silo if kind == "win_silo" else amount
            total += (won if paid is None else paid(won)) * count
    return Fraction(total, 36 * 36)


class HeuristicBot(Bot):
    """Throws only while the next throw is worth it, bets only where the odds favour it."""

    name = "heuristic"

    def act(self, turn: Turn, rng: random.Random) -> Action:
        legal_actions = turn.legal_actions
        if not legal_actions:
            raise ValueError("a bot was asked to act with no legal action")
        if len(legal_actions) == 1:
            return legal_actions[0]
        prompt = turn.decision.prompt
        if prompt == "leave_or_remain":
            # Staying costs nothing: a seat in the ring may still decline every bet and every throw.
            return {"type": "remain"}
        view, seat = turn.view, turn.seat
        if prompt == "continue_or_bow_out":
            wanted: Action = {"type": "continue" if self._should_continue(view, seat) else "bow_out"}
        elif prompt == "side_bets":
            wanted = self._side_bet(view, seat)
        elif prompt == "double_down":
            wanted = {"type": "double_down", "call": best_call(view["first_total"], house=view["house"])}
        else:
            return rng.choice(legal_actions)
        return wanted if wanted in legal_actions else legal_actions[0]

    def _should_continue(self, view: View, seat: int) -> bool:
        purse = view["purses"][seat]
        silo = max(view["silo"], SILO_ANTE)
        purse_after = purse - (silo - view["silo"])
        if view["house"]:
            value = next_throw_value(silo)
        else:
            purses = tuple(view["purses"])
            payers = tuple(
                other for other in money.ring_from_right(seat, len(purses)) if other not in view["left_ring"]
            )
            value = next_throw_value(silo, lambda amount: money.collectable(purses, amount, payers))
        return value > 0 and silo <= MAX_SILO_SHARE * (silo + purse_after)

    def _side_bet(self, view: View, seat: int) -> Action:
        purse = view["purses"][seat]
        if view["house"]:
            values = {prediction: side_bet_value(prediction) for prediction in PREDICTIONS}
            prediction = max(PREDICTIONS, key=lambda p: values[p])
            if values[prediction] <= 0:
                return {"type": "no_bet"}
            stake = max(1, purse // STAKE_DIVISOR)
        else:
            # Without a house, on the prediction most often right. Shared equally whatever each
            # winner staked, the pot is best entered with the smallest stake; shared by stake, with
            # the house-den stake. With nobody else able to bet there is no pot to win and a wager
            # can only come back.
            others = [other for other in view["side_bets"]["asked"] if other != seat]
            if not others:
                return {"type": "no_bet"}
            prediction = max(PREDICTIONS, key=right_chance)
            stake = 1 if view["options"]["pot_split"] == "equal" else max(1, purse // STAKE_DIVISOR)
        limit = purse // 2 if prediction == CHECK_THE_SILO else purse
        cap = view["options"]["max_side_bet"]
        stake = min(stake, limit, cap) if cap else min(stake, limit)
        if stake < 1:
            return {"type": "no_bet"}
        return {"type": "side_bet", "prediction": prediction, "stake": stake}


__all__ = ["HeuristicBot", "best_call", "call_value", "next_throw_value", "right_chance", "side_bet_value"]
