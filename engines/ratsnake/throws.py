"""Rat-Snake: reading the dice ("Step Two", "Step Three", "SIDE BETS" and both summary cards).

The rulebook's tables as data: what a throw of two dice is called, which side bet predicts it and at
what odds, and how a check of the silo compares with the first throw.
"""

from __future__ import annotations

# "treating a "1" as a rat and a "6" as a snake."
RAT = 1
SNAKE = 6

# Step Two names six results; these are their names on the THROWER card.
RATS_EYES = "rats_eyes"  # two rats
TWIST = "twist"  # two snakes
SNAKE_AND_RAT = "snake_and_rat"
RAT_AND_PIPS = "rat_and_pips"
SNAKE_AND_PIPS = "snake_and_pips"
PIPS_ON_BOTH = "pips_on_both"  # "Check the Silo"
RESULTS = (RATS_EYES, TWIST, SNAKE_AND_RAT, RAT_AND_PIPS, SNAKE_AND_PIPS, PIPS_ON_BOTH)

# The SIDE BETS section's phrases: 'wager the thrower will either "rat out," "twist a win," "guard the
# grain," "fill the silo," "lose his grain," or "check the silo."' (as printed on the SIDE BETS card).
RATS_OUT = "rats_out"
TWISTS_A_WIN = "twists_a_win"
GUARDS_THE_GRAIN = "guards_the_grain"
FILLS_THE_SILO = "fills_the_silo"
LOSES_GRAIN = "loses_grain"
CHECK_THE_SILO = "check_the_silo"
PREDICTIONS = (RATS_OUT, TWISTS_A_WIN, GUARDS_THE_GRAIN, FILLS_THE_SILO, LOSES_GRAIN, CHECK_THE_SILO)

PREDICTION_OF_RESULT = {
    RATS_EYES: RATS_OUT,
    TWIST: TWISTS_A_WIN,
    SNAKE_AND_RAT: GUARDS_THE_GRAIN,
    SNAKE_AND_PIPS: FILLS_THE_SILO,
    RAT_AND_PIPS: LOSES_GRAIN,
    PIPS_ON_BOTH: CHECK_THE_SILO,
}

# "the house pays 3:1 odds" / "2:1 odds"; a check of the silo "pays nothing, and requires the
# side-betting player to double down", so it has no odds of its own: the double-down call carries them.
SIDE_BET_ODDS = {
    RATS_OUT: 3,
    TWISTS_A_WIN: 3,
    GUARDS_THE_GRAIN: 3,
    FILLS_THE_SILO: 2,
    LOSES_GRAIN: 2,
    CHECK_THE_SILO: 0,
}

# The double-down calls on the check: "match" 4:1, "lose" and "gain" 2:1.
MATCH = "match"
LOSE = "lose"
GAIN = "gain"
CALLS = (MATCH, LOSE, GAIN)
DOUBLE_DOWN_ODDS = {MATCH: 4, LOSE: 2, GAIN: 2}


def is_pips(face: int) -> bool:
    return face != RAT and face != SNAKE


def classify(dice: tuple[int, int] | list[int]) -> str:
    """The name of a first throw (Step Two's six results)."""
    a, b = dice
    faces = {a, b}
    if a == b == RAT:
        return RATS_EYES
    if a == b == SNAKE:
        return TWIST
    if faces == {RAT, SNAKE}:
        return SNAKE_AND_RAT
    if RAT in faces:
        return RAT_AND_PIPS
    if SNAKE in faces:
        return SNAKE_AND_PIPS
    return PIPS_ON_BOTH


def pips(dice: tuple[int, int] | list[int]) -> int:
    """The pips on the die that is neither rat nor snake (for rat & pips, snake & pips)."""
    return sum(face for face in dice if is_pips(face))


def check_total(dice: tuple[int, int] | list[int]) -> int:
    """'When "checking the silo", a roll of a rat is treated as a "1" while a roll of a snake is
    considered a "6". Rats and snakes also do not cancel each other out': the plain sum."""
    return sum(dice)


def check_call(first_total: int, check: int) -> str:
    """How the check compares with the first throw: the three double-down calls."""
    if check == first_total:
        return MATCH
    return GAIN if check > first_total else LOSE


ALL_THROWS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, 7))
