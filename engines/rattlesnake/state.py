"""Rattlesnake: the state of a shootout (rulebook "Setup", "How to Play", "Attacking & Defending",
"Card Abilities" and "Graveyard").

A mutable `EngineState` whose every field is an immutable value (tuples, frozensets, frozen records):
the rules replace a field, never edit it, so the inherited `clone()` is a shallow copy. Cards are
named as a client names them: a player card by its number ("1" to "5"), a *Hit* card "hit", a saloon
card by its catalogue name ("switch-up"). A deck is a tuple whose last card is the top.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from engines.protocol import EngineState
from engines.rattlesnake.combos import Combo
from engines.rattlesnake.spec import Options

# The moments of a match; each is also the prompt of the matching `Decision`.
SALOON_ACTIONS = "saloon_actions"  # chance: shuffle the saloon action cards, deal 5, make the piles
SALOON_EVENTS = "saloon_events"  # chance: shuffle the events (all but High Noon) into the piles
SALOON_PILE = "saloon_pile"  # chance: shuffle one pile of 4 actions and 2 events
PLAYER_DECK = "player_deck"  # chance: shuffle one player's deck
PISTOL = "pistol"  # chance: who holds the pistol first (option `pistol`)
SHUFFLE_DISCARD = "shuffle_discard"  # chance: "shuffle your discard to create a new deck"
MAIN = "main"  # the active player buys, attacks, uses an ability, or passes the pistol
DEFEND = "defend"  # the defender plays cards face down
REVEAL = "reveal"  # cards revealed: either player may use abilities before the winner is declared
RESPOND = "respond"  # an ability waits to resolve: its owner's opponent may answer with Take Cover
TURN_END = (
    "turn_end"  # the active player is done; before the pistol passes the other may use Patch Up/Scavenge
)
OVER = "over"

CHANCE_PHASES = frozenset({SALOON_ACTIONS, SALOON_EVENTS, SALOON_PILE, PLAYER_DECK, PISTOL, SHUFFLE_DISCARD})


@dataclass(frozen=True)
class Rules:
    """The numbers the events in the saloon may change ("will modify the rules for the rest of the game")."""

    hand_size: int
    buy_cost: int
    hits_per_win: int
    run_beats_set: bool = False
    defender_min: int = 0

    def to_json(self) -> dict:
        return {
            "hand_size": self.hand_size,
            "buy_cost": self.buy_cost,
            "hits_per_win": self.hits_per_win,
            "run_beats_set": self.run_beats_set,
            "defender_min": self.defender_min,
        }


@dataclass(frozen=True)
class Pending:
    """An ability played from a hand, waiting to resolve (or be cancelled by *Take Cover*)."""

    seat: int
    card: str
    ability: str
    index: int | None = None  # a card of an attack/defense (yours, or your opponent's for lower/disarm)
    value: int | None = None  # set_value: the new value
    other: int | None = None  # swap: your opponent's card
    pick: str | None = None  # scavenge: the card taken from your discard

    def to_json(self) -> dict:
        payload = {"seat": self.seat, "card": self.card, "ability": self.ability}
        for name in ("index", "value", "other", "pick"):
            if getattr(self, name) is not None:
                payload[name] = getattr(self, name)
        return payload


class AttackRecord(NamedTuple):
    """The last attack once declared, kept for everyone to see until the next one (a named tuple:
    one is made per attack, and a frozen dataclass is slower to build)."""

    attacker: int
    attack: tuple[str, ...]
    attack_values: tuple[int | None, ...]
    defense: tuple[str, ...]
    defense_values: tuple[int | None, ...]
    attack_combo: Combo
    defense_combo: Combo
    attacker_won: bool
    hits_taken: int

    def to_json(self) -> dict:
        return {
            "attacker": self.attacker,
            "defender": 1 - self.attacker,
            "attack": list(self.attack),
            "attack_values": list(self.attack_values),
            "defense": list(self.defense),
            "defense_values": list(self.defense_values),
            "attack_combo": self.attack_combo.to_json(),
            "defense_combo": self.defense_combo.to_json(),
            "winner": "attacker" if self.attacker_won else "defender",
            "hits_taken": self.hits_taken,
        }


@dataclass(slots=True)
class RattlesnakeState(EngineState):
    options: Options
    rules: Rules
    phase: str = SALOON_ACTIONS
    decks: tuple[tuple[str, ...], ...] = ((), ())
    hands: tuple[tuple[str, ...], ...] = ((), ())  # each kept in the canonical card order
    discards: tuple[tuple[str, ...], ...] = ((), ())  # face up; the last card is the top
    hits: tuple[int, ...] = (0, 0)  # Hit cards still in front of each player
    owned: tuple[int, ...] = (0, 0)  # saloon cards each player bought and has not yet used
    saloon: tuple[str | None, ...] = ()  # the face-up slots (None: empty, the saloon deck ran out)
    buyable: tuple[str, ...] = ()  # the action cards among them, each name once, in canonical order
    saloon_deck: tuple[str, ...] = ()
    piles: tuple[tuple[str, ...], ...] = ()  # set-up only: the two piles before they are stacked
    out_of_game: tuple[str, ...] = ()  # "returning the 2 leftover action cards to the box unseen"
    graveyard: tuple[str, ...] = ()  # "Cards used for their ability go to the graveyard"
    active: int = 0  # who has the pistol
    turn: int = 0  # turns begun so far
    bought: bool = False
    attacked: bool = False
    shuffling: int = 0  # the pile or seat the pending shuffle is for
    to_draw: tuple[int, ...] = ()  # step 1: seats still to draw up, the active player first
    attack: tuple[str, ...] = ()  # the attacker's cards, face down until the defender has played
    attack_values: tuple[int | None, ...] = ()  # their numbers, as abilities have left them
    defense: tuple[str, ...] = ()
    defense_values: tuple[int | None, ...] = ()
    window: frozenset[int] = frozenset()  # REVEAL: the seats still to pass
    stack: tuple[Pending, ...] = ()  # abilities played and not yet resolved, the last on top
    resume: str = MAIN  # the phase play returns to once the stack is empty
    last_attack: AttackRecord | None = None
    winner: int | None = None
    end_reason: str | None = None
    forfeited: int | None = None

    @property
    def defender(self) -> int:
        return 1 - self.active
