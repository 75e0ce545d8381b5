"""Rat-Snake: the state of a session (rulebook "PLAYING RAT-SNAKE" and "SIDE BETS").

A mutable `EngineState` whose every field is an immutable value (numbers, tuples, frozensets, frozen
records): the rules replace a field, never edit it, so `clone()` is a shallow copy. Money is kept
where the rulebook keeps it: each player's purse, the thrower's silo, the wagers riding on the
current throw, and (in a gambling den) the house's net.
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.protocol import EngineState
from engines.ratsnake.spec import Options
from engines.ratsnake.throws import PIPS_ON_BOTH, check_total

# The moments of a session; each is also the prompt of the matching `Decision`.
SIDE_BETS = "side_bets"  # non-throwers wager face down before a throw
THROW = "throw"  # chance: the thrower's two dice
DOUBLE_DOWN = "double_down"  # check-the-silo bettors call the check face down
CHECK_THE_SILO = "check_the_silo"  # chance: the check throw
CONTINUE_OR_BOW_OUT = "continue_or_bow_out"  # the thrower's choice after a throw
LEAVE_OR_REMAIN = "leave_or_remain"  # after rat's eyes, the former thrower leaves the ring or stays
OVER = "over"

PHASES = (SIDE_BETS, THROW, DOUBLE_DOWN, CHECK_THE_SILO, CONTINUE_OR_BOW_OUT, LEAVE_OR_REMAIN, OVER)

# How a settled side bet went.
WON = "won"
LOST = "lost"
RETURNED = "returned"


@dataclass(frozen=True)
class SideBet:
    """A wager riding on the current throw; `stake` has already left the bettor's purse."""

    seat: int
    prediction: str
    stake: int
    call: str | None = None  # the double-down call, once made; the stake has doubled by then

    def to_json(self) -> dict:
        return {"seat": self.seat, "prediction": self.prediction, "stake": self.stake, "call": self.call}


@dataclass(frozen=True)
class SettledBet:
    """A side bet after the throw (or check) decided it. `returned` is what went back to the purse."""

    seat: int
    prediction: str
    stake: int
    call: str | None
    result: str  # WON, LOST or RETURNED
    returned: int

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "prediction": self.prediction,
            "stake": self.stake,
            "call": self.call,
            "result": self.result,
            "returned": self.returned,
            "net": self.returned - self.stake,
        }


@dataclass(frozen=True)
class ThrowRecord:
    """The last throw of the dice: the first throw and, after pips on both dice, its check."""

    thrower: int
    dice: tuple[int, int]
    result: str
    check: tuple[int, int] | None = None
    check_result: str | None = None  # "match", "gain" or "lose"

    @property
    def first_total(self) -> int | None:
        # Only pips on both dice are compared with a check ("the number of pips on the first roll").
        return sum(self.dice) if self.result == PIPS_ON_BOTH else None

    def to_json(self) -> dict:
        check = None
        if self.check is not None:
            check = {"dice": list(self.check), "total": check_total(self.check), "result": self.check_result}
        return {
            "thrower": self.thrower,
            "dice": list(self.dice),
            "result": self.result,
            "first_total": self.first_total,
            "check": check,
        }


@dataclass(slots=True)
class RatSnakeState(EngineState):
    options: Options
    purses: tuple[int, ...]
    phase: str
    thrower: int = 0
    silo: int = 0
    # Seat turns begun so far, skipped ones included; the thrower is always `turns_taken % seats`
    # because seat 0 throws first and the dice pass to the right, seat i to seat i + 1.
    turns_taken: int = 0
    # Seats passed over on the way to this thrower: purse below the ante or left.
    skipped: tuple[int, ...] = ()
    # Seats that left the ring: they keep their coins, throw and bet no more.
    left_ring: frozenset[int] = frozenset()
    # The open simultaneous window (side bets or double-down): who was asked, who has yet to answer.
    window: frozenset[int] = frozenset()
    waiting: frozenset[int] = frozenset()
    bets: tuple[SideBet, ...] = ()  # wagers riding on the current throw, in the order placed
    settled: tuple[SettledBet, ...] = ()  # the most recent settlement, kept until the next one
    last_throw: ThrowRecord | None = None  # kept across turns, so a bust stays visible
    house_net: int = 0  # coins the house won minus coins it paid (gambling den only)
    end_reason: str | None = None
    forfeited: int | None = None

    @property
    def seats(self) -> int:
        return len(self.purses)

    @property
    def ring(self) -> tuple[int, ...]:
        """The seats still in the ring, in seat order."""
        return tuple(seat for seat in range(len(self.purses)) if seat not in self.left_ring)

    def bet_of(self, seat: int) -> SideBet | None:
        return next((bet for bet in self.bets if bet.seat == seat), None)
