"""Rattlebones: the state of a game (rulebook SETUP and ON YOUR TURN).

A mutable `EngineState` kept as flat lists (pawns, scores, pieces, dice) that the rules edit in
place, so `clone()` copies each list once. A die is a tuple of its six sides (index 0 is the
Rattlebones icon), replaced whole when a side changes. Seat `s` owns pawns and dice `3s .. 3s + 2`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.protocol import EngineState

# The moments of a game; each is also the prompt of its `Decision`.
SET_UP = "set_up"  # chance: "Shuffle them and place 7 randomly on the blank spaces"
ROLL = "roll"  # the player chooses which dice to roll (and pays gold for extra dice)
DICE = "dice"  # chance: the chosen dice are rolled
USE_DIE = "use_die"  # the player uses one rolled die, "in the order of his choosing"
GAMBLE = "gamble"  # chance: the Gamble die
DOUBLE = "double"  # the player chooses which die an x2 doubles, at the end of his turn
OVER = "over"


@dataclass(slots=True)
class RattlebonesState(EngineState):
    seats: int
    phase: str
    board: tuple[str, ...]  # the spaces, tiles placed once set up
    pawns: list[int]  # board space of each pawn, 3 per seat
    scores: list[int]  # score markers
    gold: list[int]
    stars: list[int]
    stock: list[int]
    dice: list[tuple[str, ...]]  # 3 per seat, six sides each
    sides: dict[str, int]  # the supply of each kind of action die side
    gold_supply: int
    star_supply: int
    stock_supply: int
    rattlebones: int  # the Rattlebones pawn on the score track
    train: int = 0  # index of the train's space on the train track
    pips_out: int = 0  # "Any replaced pip sides go out of the game"
    player: int = 0
    rolled: int = 0  # bit d set: the player's die d has been rolled this turn
    to_roll: tuple[int, ...] = ()  # dice waiting for the chance roll
    showing: tuple[tuple[int, int], ...] = ()  # (die, side index) rolled and not used yet
    # (die, side kind acted on, what it earned) for each die used this turn: the x2 rule reads it.
    used: tuple[tuple[int, str, int], ...] = ()
    gamble_for: int | None = None  # the die whose GAMBLE side is being rolled
    x2_points: str = "die_actions"  # the option: which points an x2 doubles
    end_reason: str | None = None
    forfeited: int | None = None
    # the legal actions once worked out, possibly a tuple shared with other states: never mutated
    legal_cache: Sequence[dict[str, Any]] | None = field(default=None, repr=False, compare=False)

    def clone(self) -> RattlebonesState:
        copy = RattlebonesState.__new__(RattlebonesState)
        copy.decision_cache = self.decision_cache
        copy.legal_cache = self.legal_cache
        copy.seats, copy.phase, copy.board = self.seats, self.phase, self.board
        copy.pawns, copy.scores = self.pawns[:], self.scores[:]
        copy.gold, copy.stars, copy.stock = self.gold[:], self.stars[:], self.stock[:]
        copy.dice, copy.sides = self.dice[:], self.sides.copy()
        copy.gold_supply, copy.star_supply, copy.stock_supply = (
            self.gold_supply,
            self.star_supply,
            self.stock_supply,
        )
        copy.rattlebones, copy.train, copy.pips_out = self.rattlebones, self.train, self.pips_out
        copy.player, copy.rolled, copy.to_roll = self.player, self.rolled, self.to_roll
        copy.showing, copy.used, copy.gamble_for = self.showing, self.used, self.gamble_for
        copy.x2_points = self.x2_points
        copy.end_reason, copy.forfeited = self.end_reason, self.forfeited
        return copy
