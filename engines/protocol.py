"""The one protocol every game engine implements (see docs/engines.md).

Modelled on OpenSpiel's Game/State split, in a functional shape: a `Game` is a stateless object whose
methods take an immutable state and return a new one. Whoever must decide next is a `Decision`: one
seat, several seats committing face down at once, a response window any listed seat may answer, or
*chance*. Everything that changes a state is an `Event` (a seat's action, a chance outcome, or a
forfeit the service records), so a match is exactly its event log.

Engines import nothing from Django, do no I/O, read no clock and use no global random.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Mapping, TypeVar

from engines.chance import ChanceRequest
from engines.errors import IllegalAction, InvalidOptions, InvalidSeats

Action = dict[str, Any]  # a JSON object; always has a "type"
View = dict[str, Any]  # a JSON object
S = TypeVar("S")

EventKind = Literal["action", "chance", "forfeit"]
DecisionKind = Literal["turn", "simultaneous", "response", "chance", "over"]


@dataclass(frozen=True)
class OptionSpec:
    """One named rule variant or setting, with its default and why it exists."""

    name: str
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: Any) -> Any:
        expected = type(self.default)
        if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise InvalidOptions(f"option {self.name!r} takes a whole number", code="options/wrong_type")
        if expected is not int and not isinstance(value, expected):
            raise InvalidOptions(
                f"option {self.name!r} takes a {expected.__name__}", code="options/wrong_type"
            )
        if self.choices is not None and value not in self.choices:
            raise InvalidOptions(
                f"option {self.name!r} is one of {list(self.choices)}", code="options/not_a_choice"
            )
        if self.minimum is not None and value < self.minimum:
            raise InvalidOptions(f"option {self.name!r} is at least {self.minimum}", code="options/out_of_range")
        if self.maximum is not None and value > self.maximum:
            raise InvalidOptions(f"option {self.name!r} is at most {self.maximum}", code="options/out_of_range")
        return value

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {"name": self.name, "default": self.default, "doc": self.doc}
        if self.choices is not None:
            described["choices"] = list(self.choices)
        if self.minimum is not None:
            described["minimum"] = self.minimum
        if self.maximum is not None:
            described["maximum"] = self.maximum
        return described


@dataclass(frozen=True)
class GameSpec:
    """Metadata and declared options, stated once at the top of each engine."""

    key: str
    name: str
    version: str
    min_players: int
    max_players: int
    rulebook: str
    options: tuple[OptionSpec, ...] = ()
    has_chance: bool = True
    has_hidden_information: bool = False
    has_simultaneous_moves: bool = False
    needs_deck: bool = False  # each seat brings a deck checked before the match (Rag'n'Guns)

    def resolve_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Defaults filled in, every value checked; unknown names are an error, not ignored."""
        given = dict(given or {})
        known = {option.name: option for option in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise InvalidOptions(f"unknown option(s) for {self.key}: {', '.join(unknown)}", code="options/unknown")
        return {name: option.check(given.get(name, option.default)) for name, option in known.items()}

    def check_seat_count(self, seats: int) -> None:
        if not self.min_players <= seats <= self.max_players:
            raise InvalidSeats(
                f"{self.name} takes {self.min_players} to {self.max_players} players, not {seats}"
            )

    def describe(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "version": self.version,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "rulebook": self.rulebook,
            "has_chance": self.has_chance,
            "has_hidden_information": self.has_hidden_information,
            "has_simultaneous_moves": self.has_simultaneous_moves,
            "needs_deck": self.needs_deck,
            "options": [option.describe() for option in self.options],
        }


@dataclass(frozen=True)
class Decision:
    """Who may act now.

    - turn: exactly one seat acts.
    - simultaneous: every listed seat submits one action, in any order, unseen by the others
      (Rattlesnake's face-down attack and defence, Rat-Snake's side bets); the engine resolves once all
      are in. `seats` shrinks as seats submit.
    - response: any listed seat may answer the pending action or pass; answers stack and the last one
      resolves first (The Greatest Snake, Take Cover). The window closes when every listed seat passed.
    - chance: the service must append a chance outcome for `Game.chance_request()`.
    - over: the match has ended; `Game.outcome()` is set.
    """

    kind: DecisionKind
    seats: frozenset[int] = frozenset()
    prompt: str = ""  # a short machine label for the moment: "throw", "continue_or_bow_out", ...

    @classmethod
    def turn(cls, seat: int, prompt: str) -> "Decision":
        return cls("turn", frozenset({seat}), prompt)

    @classmethod
    def simultaneous(cls, seats: frozenset[int] | set[int], prompt: str) -> "Decision":
        return cls("simultaneous", frozenset(seats), prompt)

    @classmethod
    def response(cls, seats: frozenset[int] | set[int], prompt: str) -> "Decision":
        return cls("response", frozenset(seats), prompt)

    @classmethod
    def chance(cls, prompt: str) -> "Decision":
        return cls("chance", frozenset(), prompt)

    @classmethod
    def over(cls) -> "Decision":
        return cls("over", frozenset(), "over")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seats": sorted(self.seats), "prompt": self.prompt}


@dataclass(frozen=True)
class Event:
    """One entry of a match log, as the engine sees it (the store adds seq, time and key)."""

    kind: EventKind
    payload: Mapping[str, Any] = field(default_factory=dict)
    seat: int | None = None

    @classmethod
    def action(cls, seat: int, action: Action) -> "Event":
        return cls("action", action, seat)

    @classmethod
    def chance_outcome(cls, outcome: Mapping[str, Any]) -> "Event":
        return cls("chance", outcome, None)

    @classmethod
    def forfeit(cls, seat: int, reason: str) -> "Event":
        return cls("forfeit", {"reason": reason}, seat)


@dataclass(frozen=True)
class Outcome:
    """How a finished match ended: rank per seat (1 is best; equal ranks are ties) and score per seat."""

    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    reason: str

    @classmethod
    def from_scores(cls, scores: tuple[float, ...], reason: str, *, last: frozenset[int] = frozenset()) -> "Outcome":
        """Rank by score, higher first, equal scores tied; seats in `last` rank below everyone else."""

        def key(seat: int) -> tuple[bool, float]:
            return (seat in last, -scores[seat])

        ranks = [0] * len(scores)
        for seat in range(len(scores)):
            ranks[seat] = 1 + sum(1 for other in range(len(scores)) if key(other) < key(seat))
        return cls(tuple(ranks), tuple(scores), reason)

    def to_json(self) -> dict[str, Any]:
        return {"ranks": list(self.ranks), "scores": list(self.scores), "reason": self.reason}


class Game(ABC, Generic[S]):
    """A game's rules. Stateless: every method is a pure function of its arguments."""

    spec: GameSpec

    # --- setting up -------------------------------------------------------------------------------
    def new_state(self, *, seats: int, options: Mapping[str, Any] | None = None) -> S:
        """The state before any event, for `seats` players and the given (partial) options."""
        self.spec.check_seat_count(seats)
        return self.initial_state(seats=seats, options=self.spec.resolve_options(options))

    @abstractmethod
    def initial_state(self, *, seats: int, options: dict[str, Any]) -> S:
        """Like `new_state`, with options already resolved and checked."""

    # --- asking -----------------------------------------------------------------------------------
    @abstractmethod
    def decision(self, state: S) -> Decision:
        """Who must act now."""

    @abstractmethod
    def legal_actions(self, state: S, seat: int) -> list[Action]:
        """Every action `seat` may take now (empty when it is not this seat's decision)."""

    def chance_request(self, state: S) -> ChanceRequest:
        """What must be drawn, when `decision(state).kind == "chance"`."""
        raise IllegalAction("this game has no chance", code="chance/not_expected")

    @abstractmethod
    def view(self, state: S, seat: int | None) -> View:
        """What `seat` may see (None: a spectator). Never an opponent's hand or any deck order."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result once the match is over, else None."""

    def event_audience(self, state_before: S, event: Event) -> frozenset[int] | None:
        """Which seats may read this event's payload while the match runs; None means everyone.

        Override where an event carries a secret: a shuffle (nobody), a private draw (its owner), a
        face-down commit (its author). After the match ends every payload is public.
        """
        return None

    # --- changing ---------------------------------------------------------------------------------
    def apply(self, state: S, event: Event) -> S:
        """The state after `event`, or `IllegalAction` with a code; `state` itself never changes."""
        decision = self.decision(state)
        if event.kind == "forfeit":
            if decision.kind == "over":
                raise IllegalAction("the match is over", code="match/over")
            if event.seat is None or not 0 <= event.seat < self.seat_count(state):
                raise IllegalAction("a forfeit names a seat", code="forfeit/unknown_seat")
            return self.apply_forfeit(state, event.seat, str(event.payload.get("reason", "")))
        if decision.kind == "over":
            raise IllegalAction("the match is over", code="match/over")
        if event.kind == "chance":
            if decision.kind != "chance":
                raise IllegalAction("no chance outcome is expected now", code="chance/not_expected")
            request = self.chance_request(state)
            request.check(dict(event.payload))
            return self.apply_chance(state, dict(event.payload))
        if event.kind != "action":
            raise IllegalAction(f"unknown event kind {event.kind!r}", code="event/unknown_kind")
        if decision.kind == "chance":
            raise IllegalAction("waiting for a chance outcome", code="turn/chance_pending")
        if event.seat not in decision.seats:
            raise IllegalAction(f"seat {event.seat} is not to act now", code="turn/not_your_turn")
        if not isinstance(event.payload, Mapping) or not isinstance(event.payload.get("type"), str):
            raise IllegalAction('an action is a JSON object with a "type"', code="action/malformed")
        return self.apply_action(state, event.seat, dict(event.payload))

    @abstractmethod
    def apply_action(self, state: S, seat: int, action: Action) -> S:
        """Apply a seat's action; called only when `seat` is among those deciding."""

    def apply_chance(self, state: S, outcome: dict[str, Any]) -> S:
        raise IllegalAction("this game has no chance", code="chance/not_expected")

    @abstractmethod
    def apply_forfeit(self, state: S, seat: int, reason: str) -> S:
        """End the match (or drop the seat, where the game goes on without it) with `seat` ranked last."""

    @abstractmethod
    def seat_count(self, state: S) -> int:
        """How many seats this state was set up for."""

    def describe(self) -> dict[str, Any]:
        """The spec as JSON, with the names of the built-in bots."""
        return {**self.spec.describe(), "bots": sorted(self.bots())}

    # --- bots -------------------------------------------------------------------------------------
    @abstractmethod
    def bots(self) -> Mapping[str, "Bot"]:
        """The built-in bots by name; every game has at least `random` (`engines.bots.RandomBot`)."""


class Bot(ABC):
    """A built-in player. It sees only its seat's view, like any client of the API would."""

    name: str

    @abstractmethod
    def act(self, *, view: View, legal_actions: list[Action], seat: int, rng: random.Random) -> Action:
        """One of `legal_actions`; `rng` is a seeded generator handed in by the caller."""
