"""Cup Dice: the state of a match.

Every field is an immutable value that the rules replace, never edit, so the inherited `clone()`
(a shallow copy) is a whole, independent state.
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.protocol import EngineState

FOLD = 0  # a stake of nothing: the player sits the round out


@dataclass(slots=True)
class CupDiceState(EngineState):
    rounds: int
    chips: tuple[int, ...]  # each player's winnings so far (may be below zero)
    round: int = 1  # the round being played; past `rounds` when the match is over
    dice: tuple[int, ...] = ()  # this round's dice under the cups, seat by seat as they are rolled
    stakes: tuple[int | None, ...] = ()  # this round's stakes by seat: None until staked, FOLD, 1 to 3
    lifted: tuple[tuple[int, int], ...] = ()  # the last round's (die, stake) by seat, once lifted
    forfeited: int | None = None

    @property
    def seats(self) -> int:
        return len(self.chips)

    @property
    def over(self) -> bool:
        return self.forfeited is not None or self.round > self.rounds
