"""Rat-Snake: metadata and options (rulebook "Rat-Snake", "PLAYING RAT-SNAKE" and "SIDE BETS").

Every option exists because the rulebook leaves a point open or says two things; the `doc` of each
option quotes why. docs/games/rat-snake.md lists every reading with the sentence it comes from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines.protocol import GameSpec, OptionSpec

# "Step One: The current player (known as the "thrower") antes six coins." and "SILO STARTING ANTE: 6".
# Fixed by the rulebook, so a constant and not an option.
SILO_ANTE = 6

MAY_BOW_OUT = "may_bow_out"
MUST_CONTINUE = "must_continue"
EQUAL = "equal"
BY_STAKE = "by_stake"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        name="passes",
        default=2,
        minimum=1,
        maximum=20,
        doc=(
            "How many times the dice go around the whole ring before the session ends. The rulebook "
            "never says when a session of Rat-Snake ends."
        ),
    ),
    OptionSpec(
        name="starting_purse",
        default=60,
        minimum=SILO_ANTE,
        maximum=100_000,
        doc="Coins each player brings to the ring (the rulebook does not say; at least one ante).",
    ),
    OptionSpec(
        name="house",
        default=True,
        doc=(
            "True: 'In gambling dens, the players compete against a house who covers the wagering.' "
            "False: 'the other player(s) act as the house, paying the thrower's winnings from their own "
            "pockets and collecting his losses, splitting the payments and collections equally among "
            "themselves', and side bets are won by 'whichever non-throwing player(s) correctly "
            "predicted the thrower's outcome'."
        ),
    ),
    OptionSpec(
        name="rat_and_pips",
        default=MAY_BOW_OUT,
        choices=(MAY_BOW_OUT, MUST_CONTINUE),
        doc=(
            "After a rat and pips that leaves coins in the silo. The text says he 'can increase his "
            "ante back up to six coins and continue to play, or bow out with his remaining stakes' "
            "(may_bow_out, the default); the THROWER card says 'must continue play if possible' "
            "(must_continue)."
        ),
    ),
    OptionSpec(
        name="side_bets",
        default=True,
        doc="'Players not currently throwing can place side bets against the house or one another.'",
    ),
    OptionSpec(
        name="max_side_bet",
        default=0,
        minimum=0,
        maximum=100_000,
        doc=(
            "The largest first stake of one side bet; 0 (the default) is no cap: the rulebook sets none, "
            "so a stake is limited only by the purse, and a check-the-silo bet by half of it, because it "
            "'requires the side-betting player to double down'. A house rule may set a cap."
        ),
    ),
    OptionSpec(
        name="pot_split",
        default=EQUAL,
        choices=(EQUAL, BY_STAKE),
        doc=(
            "Without a house, 'the losers' wagers are won by whichever non-throwing player(s) correctly "
            "predicted the thrower's outcome', and the rulebook does not say in what shares. equal (the "
            "default): the same share to each right predictor, as the sentence names players, not "
            "stakes; by_stake: shares in proportion to what each staked."
        ),
    ),
)

SPEC = GameSpec(
    key="rat-snake",
    name="Rat-Snake",
    version="2.0.0",
    min_players=2,
    max_players=8,
    rulebook="Rat-Snake, Goodman Games GMG5207, 3rd printing (text (c) 2019 Goodman Games)",
    options=OPTIONS,
    has_chance=True,
    # Side bets are placed face down while the window is open (see `Game.event_audience`).
    has_hidden_information=True,
    has_simultaneous_moves=True,
)


@dataclass(frozen=True)
class Options:
    """The resolved options of one match, as an immutable value kept in the state."""

    passes: int = 2
    starting_purse: int = 60
    house: bool = True
    rat_and_pips: str = MAY_BOW_OUT
    side_bets: bool = True
    max_side_bet: int = 0  # 0: no cap
    pot_split: str = EQUAL

    @classmethod
    def from_resolved(cls, resolved: Mapping[str, Any]) -> Options:
        return cls(**{option.name: resolved[option.name] for option in OPTIONS})

    def to_json(self) -> dict[str, Any]:
        return {option.name: getattr(self, option.name) for option in OPTIONS}
