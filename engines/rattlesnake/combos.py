"""Rattlesnake: combos and which one wins (rulebook "Attacking & Defending": "Valid combos" and
"Winning combos").

"Set: two or more of the same number", "Run: ascending string of numbers of length two or more",
"Single card". Only the strongest combo of an attack/defense counts ("You may not count multiple
combos"); Hits and saloon cards carry no number, so they never count ("Hits may never be used in a
combo, but they may be played as a bluff"). Combos compare by "A Number of cards", then "B Type of
combo: A set beats a run", then "C Highest card", and "D If all previous criteria are tied, the
defender wins".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

SET = "set"
RUN = "run"
SINGLE = "single"


@dataclass(frozen=True)
class Combo:
    kind: str | None  # SET, RUN, SINGLE, or None when no card carries a number
    numbers: tuple[int, ...]  # the numbers pushed forward, lowest first

    def key(self, *, run_beats_set: bool = False) -> tuple[int, int, int]:
        """What "Winning combos" compares, in order: number of cards, type, highest card."""
        if self.kind is None:
            return (0, 0, 0)
        # B: "A set beats a run" (the designed event Straight Shooter turns it round). A single is
        # neither; it only ever meets other singles, where the type cannot decide.
        if self.kind == SET:
            kind = 0 if run_beats_set else 1
        elif self.kind == RUN:
            kind = 1 if run_beats_set else 0
        else:
            kind = 0
        return (len(self.numbers), kind, self.numbers[-1])

    def to_json(self) -> dict:
        return {"kind": self.kind, "numbers": list(self.numbers)}


NO_COMBO = Combo(None, ())


def strongest(values: Iterable[int | None], *, run_beats_set: bool = False) -> Combo:
    """The strongest combo among the numbers played (None: a card with no number)."""
    return _strongest(tuple(values), run_beats_set)


@lru_cache(maxsize=8192)  # the same handful of numbers come up again and again
def _strongest(values: tuple[int | None, ...], run_beats_set: bool) -> Combo:
    counts: dict[int, int] = {}
    for value in values:
        if value is not None:
            counts[value] = counts.get(value, 0) + 1
    if not counts:
        return NO_COMBO
    candidates = [Combo(SINGLE, (max(counts),))]
    for value, count in counts.items():
        if count >= 2:
            candidates.append(Combo(SET, (value,) * count))
    # Runs: each maximal string of consecutive numbers; a shorter part of it is never stronger.
    present = sorted(counts)
    start = 0
    for index in range(1, len(present) + 1):
        if index == len(present) or present[index] != present[index - 1] + 1:
            if index - start >= 2:
                candidates.append(Combo(RUN, tuple(present[start:index])))
            start = index
    return max(candidates, key=lambda combo: combo.key(run_beats_set=run_beats_set))


@lru_cache(maxsize=8192)
def judged(values: tuple[int | None, ...], run_beats_set: bool) -> tuple[Combo, tuple[int, int, int]]:
    """The strongest combo among the numbers and what "Winning combos" compares of it (`Combo.key`),
    in one cached look-up: a verdict is then one comparison of two tuples of ints."""
    combo = _strongest(values, run_beats_set)
    return combo, combo.key(run_beats_set=run_beats_set)


def attacker_wins(attack: Combo, defense: Combo, *, run_beats_set: bool = False) -> bool:
    """D: "If all previous criteria are tied, the defender wins": the attacker must be strictly ahead."""
    return attack.key(run_beats_set=run_beats_set) > defense.key(run_beats_set=run_beats_set)
