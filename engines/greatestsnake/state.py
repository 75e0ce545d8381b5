"""The Greatest Snake: the state of a match (rulebook "Setting Up", "Order of a Turn", "Card Types",
"Card Resolution Order").

A mutable `EngineState` that keeps lists and edits them in place, so it overrides `clone()` to copy
every list. Cards are integer ids (`engines.greatestsnake.catalogue`). Each snake is three parallel
pieces: its Body Cards (`bodies[seat]`, the Fashionable Body first, then digested rats in order), the
equipment on each Body Card (`gear[seat][i]`, -1 for none) and its spaces (`spaces[seat]`: index 0 is
the Head, 1..n the Body Cards, the last the Tail; each holds a rat's id or -1, as "rats cannot occupy
the same space in a snake at the same time"). Pile tops are list ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from engines.greatestsnake.spec import Options
from engines.protocol import EngineState

# The moments of a match; each is also the prompt of its `Decision`.
FIRST_PLAYER = "first_player"  # chance: who goes first (option first_player = random)
SHUFFLE = "shuffle"  # chance: the Deck's first shuffle
RAT_KING_BACK = "rat_king"  # chance: "If one of the Rat Cards is Rat King, shuffle it back into the Deck."
REFILL = "refill"  # chance: the Discard Pile and the Pit shuffled into an empty Deck
DRAW = "draw"  # the Pit-y Rule offers a choice: draw from the Deck or the top rat of the Pit
RAT = "rat"  # a drawn rat is face up: eat it or place it in the Pit
MAIN = "main"  # equip, play powers, use abilities, then "Digest!"
RESPOND = "respond"  # a response window: the other players may answer the pending action
OVER = "over"

NO_CARD = -1


class Entry(NamedTuple):
    """An action waiting on the stack for its response window to close ("the last action resolves
    first"). `what` is eat, equip, play (a Power Card), use (an equipment ability) or digest.
    `snake` is the seat it is aimed at (-1: none), which is what Dodge may cancel."""

    author: int
    what: str
    card: int  # the rat eaten, the card equipped or played, or the equipment whose ability is used
    effect: str = ""
    snake: int = -1
    target: int = -1  # a rat id, an equipment id, a stack index or a Body Card index
    extra: int = -1  # steal: the stealer's Body Card index; swap: the other snake's equipment

    def to_json(self) -> dict:
        return {
            "author": self.author,
            "what": self.what,
            "card": None if self.card < 0 else self.card,
            "effect": self.effect or None,
            "snake": None if self.snake < 0 else self.snake,
            "target": None if self.target < 0 else self.target,
            "extra": None if self.extra < 0 else self.extra,
        }


@dataclass(slots=True)
class SnakeState(EngineState):
    options: Options
    seats: int
    phase: str = SHUFFLE
    active: int = 0  # whose turn it is (during set-up: the first player, once known)
    turn_number: int = 0  # turns begun; the round is (turn_number - 1) // seats + 1
    deck: list[int] = field(default_factory=list)  # top = last
    discard: list[int] = field(default_factory=list)  # face up, top = last
    pit: list[int] = field(default_factory=list)  # face up, top = last
    hands: list[list[int]] = field(default_factory=list)
    bodies: list[list[int]] = field(default_factory=list)
    gear: list[list[int]] = field(default_factory=list)
    spaces: list[list[int]] = field(default_factory=list)
    awake: list[bool] = field(default_factory=list)
    glue: list[int] = field(default_factory=list)  # the Super Glue card on each Head, or -1
    ammo: dict[int, tuple[int, ...]] = field(default_factory=dict)  # equipment id -> cards used as ammo
    drawn: int = NO_CARD  # a drawn rat lying face up, waiting to be eaten or placed in the Pit
    stack: list[Entry] = field(default_factory=list)
    cancelled: frozenset[int] = frozenset()  # stack indices dodged
    window: frozenset[int] = frozenset()  # who may answer the top of the stack
    passed: frozenset[int] = frozenset()  # who has passed since the last answer
    winners: tuple[int, ...] = ()
    end_reason: str = ""
    forfeited: int = -1
    # legal actions of the deciding seat, worked out once per state (not part of the state's value)
    legal_cache: tuple | None = field(default=None, compare=False, repr=False)
    # targets every seat shares while the table does not change (a response window's passes): which
    # heads are unglued, which snakes awake, which can eat, which rats can be squeezed
    targets: list | None = field(default=None, compare=False, repr=False)

    def clone(self) -> SnakeState:
        copy = SnakeState.__new__(SnakeState)
        copy.decision_cache = self.decision_cache
        copy.legal_cache = self.legal_cache
        copy.targets = self.targets
        copy.options = self.options
        copy.seats = self.seats
        copy.phase = self.phase
        copy.active = self.active
        copy.turn_number = self.turn_number
        copy.deck = self.deck[:]
        copy.discard = self.discard[:]
        copy.pit = self.pit[:]
        copy.hands = [hand[:] for hand in self.hands]
        copy.bodies = [body[:] for body in self.bodies]
        copy.gear = [gear[:] for gear in self.gear]
        copy.spaces = [spaces[:] for spaces in self.spaces]
        copy.awake = self.awake[:]
        copy.glue = self.glue[:]
        copy.ammo = dict(self.ammo)
        copy.drawn = self.drawn
        copy.stack = self.stack[:]
        copy.cancelled = self.cancelled
        copy.window = self.window
        copy.passed = self.passed
        copy.winners = self.winners
        copy.end_reason = self.end_reason
        copy.forfeited = self.forfeited
        return copy

    def length(self, seat: int) -> int:
        """Cards in the snake, "including head and tail"."""
        return len(self.bodies[seat]) + 2

    def digesting(self, seat: int) -> bool:
        return max(self.spaces[seat]) >= 0
