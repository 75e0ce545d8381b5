"""Rag'n'Guns: the state of a duel (rules 0.3: SETUP, BULLETS/CYLINDER/CARTRIDGE BELT, PLACE,
HIDEOUT, TRAPS, NO MORE CARDS?).

One `Side` per seat holds everything on that player's side of the table; the state holds whose turn
and which moment it is. Sides keep lists (the deck, the hand, the two Hideout slots) that the rules
edit in place, so `clone()` copies them. Chips are counted, not named: `bank` is the chip stack the
two players share, so every chip is in exactly one place (bank, a player's Bullets, a Cartridge Belt,
a TRAP, or a wound on a card) and the total never changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines.protocol import EngineState


@dataclass(slots=True)
class Side:
    """One player's side of the table."""

    gunslinger: str | None = None  # card id; None until the deck is brought
    wounds: int = 0  # Bullets on the GUNSLINGER ("six BULLETS ... you win")
    in_alley: bool = False  # NO MORE CARDS?: moved into the Alley "for good"
    ready: bool = False  # could no longer draw: the GUNSLINGER is *ready*
    cylinder: int = 1
    bullets: int = 0  # this turn's Bullets (the resource)
    belt: int = 0  # the Cartridge Belt: only for the GUNSLINGER's two Effects
    turns: int = 0  # turns this player has started
    deck: list[str] = field(default_factory=list)  # index 0 is the top
    hand: list[str] = field(default_factory=list)
    alley: str | None = None
    alley_wounds: int = 0
    shelter: str | None = None
    shelter_wounds: int = 0
    hideout: list[list[str]] = field(default_factory=lambda: [[], []])  # each slot bottom -> top
    face_down: frozenset[str] = frozenset()  # TRAPS lying face down in the Hideout
    discard: list[str] = field(default_factory=list)  # the discard zone, face up, oldest first
    traps: list[tuple[str, int]] = field(default_factory=list)  # (card, Bullets on it), placed, not defused
    used: frozenset[tuple[str, int]] = frozenset()  # (card, effect index) played this turn (∞)
    gunfights: int = 0  # gunfights left this turn
    boost: tuple[str, int] | None = None  # (WEAPON in the Alley, extra ♠) until the end of the turn

    def copy(self) -> Side:
        return Side(
            self.gunslinger,
            self.wounds,
            self.in_alley,
            self.ready,
            self.cylinder,
            self.bullets,
            self.belt,
            self.turns,
            self.deck[:],
            self.hand[:],
            self.alley,
            self.alley_wounds,
            self.shelter,
            self.shelter_wounds,
            [self.hideout[0][:], self.hideout[1][:]],
            self.face_down,
            self.discard[:],
            self.traps[:],
            self.used,
            self.gunfights,
            self.boost,
        )

    def hideout_tops(self) -> list[str]:
        return [slot[-1] for slot in self.hideout if slot]

    def chips(self) -> int:
        """Every chip on this side: Bullets, belt, wounds, and chips on this player's TRAPS."""
        return (
            self.bullets
            + self.belt
            + self.wounds
            + self.alley_wounds
            + self.shelter_wounds
            + sum(bullets for _, bullets in self.traps)
        )


@dataclass(slots=True)
class RagnGunsState(EngineState):
    """A duel. `phase` names the moment (the decision's prompt); `current` is whose turn it is."""

    format: str = "standard"
    first_option: str = "random"
    improvise_cost: str = "so_i_pay_nothing"
    turn_limit: int = 30
    sides: list[Side] = field(default_factory=lambda: [Side(), Side()])
    decks: list[tuple[str, ...] | None] = field(default_factory=lambda: [None, None])  # brought, canonical
    phase: str = "bring_deck"
    current: int = 0
    first: int | None = None
    shuffled: int = 0  # decks shuffled so far
    pending: tuple[Any, ...] = ()  # distribute: (defender, Bullets, resume); choose_trap: (Bullets,)
    bank: int = 0  # the chip stack (negative: chips handed out since set-up)
    turn_total: int = 0
    winner: int | None = None  # None with phase "over": a draw
    end_reason: str = ""
    loser_forfeited: bool = False

    def clone(self) -> RagnGunsState:
        copy = RagnGunsState(
            self.format,
            self.first_option,
            self.improvise_cost,
            self.turn_limit,
            [self.sides[0].copy(), self.sides[1].copy()],
            self.decks[:],
            self.phase,
            self.current,
            self.first,
            self.shuffled,
            self.pending,
            self.bank,
            self.turn_total,
            self.winner,
            self.end_reason,
            self.loser_forfeited,
        )
        copy.decision_cache = self.decision_cache
        return copy

    def chips(self) -> int:
        """Chips everywhere: the bank plus both sides. Constant (0) in every reachable state."""
        return self.bank + self.sides[0].chips() + self.sides[1].chips()
