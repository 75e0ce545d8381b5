"""The one protocol every game engine implements (see docs/engines.md).

Modelled on OpenSpiel's Game/State split: a `Game` is a stateless object of rules, and a state is a
mutable `EngineState` owned by whoever holds it. `Game.apply(state, event)` advances the state in
place; `state.clone()` is the cheap, independent copy for a caller that must keep the old one.
Whoever must decide next is a `Decision` (one seat, several seats committing face down at once, a
response window any listed seat may answer, or *chance*), computed once per state and cached on it.
Everything that changes a state is an `Event` (a seat's action, a chance outcome, or a forfeit the
service records), so a match is exactly its event log. Bots are handed a `Turn`, whose view and
legal actions are computed only if the bot reads them.

Engines import nothing from Django, do no I/O, read no clock and use no global random.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Generic, Literal, TypeVar

from engines.chance import ChanceRequest
from engines.describe import plain_sentence
from engines.errors import IllegalAction, InvalidOptions, InvalidSeats

Action = dict[str, Any]  # a JSON object; always has a "type"
View = dict[str, Any]  # a JSON object
S = TypeVar("S", bound="EngineState")

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
    # Written in by the service when a match is created (the Rag'n'Guns ban list in effect), not a
    # variant people choose: forms do not offer it.
    set_at_creation: bool = False

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
            raise InvalidOptions(
                f"option {self.name!r} is at least {self.minimum}", code="options/out_of_range"
            )
        if self.maximum is not None and value > self.maximum:
            raise InvalidOptions(
                f"option {self.name!r} is at most {self.maximum}", code="options/out_of_range"
            )
        return value

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {"name": self.name, "default": self.default, "doc": self.doc}
        if self.choices is not None:
            described["choices"] = list(self.choices)
        if self.minimum is not None:
            described["minimum"] = self.minimum
        if self.maximum is not None:
            described["maximum"] = self.maximum
        if self.set_at_creation:
            described["set_at_creation"] = True
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
            raise InvalidOptions(
                f"unknown option(s) for {self.key}: {', '.join(unknown)}", code="options/unknown"
            )
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
    def turn(cls, seat: int, prompt: str) -> Decision:
        return cls("turn", frozenset({seat}), prompt)

    @classmethod
    def simultaneous(cls, seats: frozenset[int] | set[int], prompt: str) -> Decision:
        return cls("simultaneous", frozenset(seats), prompt)

    @classmethod
    def response(cls, seats: frozenset[int] | set[int], prompt: str) -> Decision:
        return cls("response", frozenset(seats), prompt)

    @classmethod
    def chance(cls, prompt: str) -> Decision:
        return cls("chance", frozenset(), prompt)

    @classmethod
    def over(cls) -> Decision:
        return cls("over", frozenset(), "over")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seats": sorted(self.seats), "prompt": self.prompt}


@dataclass(frozen=True)
class Event:
    """One entry of a match log, as the engine sees it (the store adds seq, time and key)."""

    kind: EventKind
    payload: Mapping[str, Any] = field(default_factory=dict)
    seat: int | None = None

    # The engine loop makes one event per move. A frozen dataclass's __init__ sets each field with
    # object.__setattr__; these constructors fill the instance's __dict__ at once instead, the same
    # fields and values, in about two thirds of the time (issue #28; docs/bench.md).
    @classmethod
    def action(cls, seat: int, action: Action) -> Event:
        event = _new_object(cls)
        event.__dict__.update(kind="action", payload=action, seat=seat)
        return event

    @classmethod
    def chance_outcome(cls, outcome: Mapping[str, Any]) -> Event:
        event = _new_object(cls)
        event.__dict__.update(kind="chance", payload=outcome, seat=None)
        return event

    @classmethod
    def forfeit(cls, seat: int, reason: str) -> Event:
        return cls("forfeit", {"reason": reason}, seat)


_new_object = object.__new__


@dataclass(frozen=True)
class Outcome:
    """How a finished match ended: rank per seat (1 is best; equal ranks are ties) and score per seat."""

    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    reason: str

    @classmethod
    def from_scores(
        cls, scores: tuple[float, ...], reason: str, *, last: frozenset[int] = frozenset()
    ) -> Outcome:
        """Rank by score, higher first, equal scores tied; seats in `last` rank below everyone else."""

        def key(seat: int) -> tuple[bool, float]:
            return (seat in last, -scores[seat])

        ranks = [0] * len(scores)
        for seat in range(len(scores)):
            ranks[seat] = 1 + sum(1 for other in range(len(scores)) if key(other) < key(seat))
        return cls(tuple(ranks), tuple(scores), reason)

    def to_json(self) -> dict[str, Any]:
        return {"ranks": list(self.ranks), "scores": list(self.scores), "reason": self.reason}


def _as_dict(payload: Any) -> dict[str, Any] | None:
    """An event's payload as the dict engines read (never copied when it is one already: engines
    read payloads and never keep or change them); None when it is not a JSON object."""
    if type(payload) is dict:
        return payload
    return dict(payload) if isinstance(payload, Mapping) else None


@dataclass(slots=True, eq=False)
class EngineState:
    """The base of every engine's state: a mutable record that `Game.apply` advances in place.

    `clone()` copies every field one level deep. An engine that keeps each field an immutable value
    (numbers, strings, tuples, frozensets, frozen records), as Rat-Snake does, replaces fields rather
    than editing them, and then this shallow copy is a whole, independent state; an engine that
    edits a list or dict in place overrides `clone()` to copy it. `decision_cache` holds the
    state's `Decision` once asked for; `Game.apply` clears it.
    """

    decision_cache: Decision | None = field(default=None, init=False, repr=False, compare=False)
    _field_names: ClassVar[dict[type, tuple[str, ...]]] = {}

    def clone(self: S) -> S:
        cls = type(self)
        names = EngineState._field_names.get(cls)
        if names is None:
            names = EngineState._field_names[cls] = tuple(f.name for f in fields(cls))
        copy = object.__new__(cls)
        for name in names:
            object.__setattr__(copy, name, getattr(self, name))
        return copy


class Game(ABC, Generic[S]):
    """A game's rules. Stateless: every method is a function of its arguments; only `apply` changes
    the state it is given, and only when it succeeds."""

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
    def decision(self, state: S) -> Decision:
        """Who must act now: computed once per state (`decide`), then read from the state."""
        decision = state.decision_cache
        if decision is None:
            decision = state.decision_cache = self.decide(state)
        return decision

    @abstractmethod
    def decide(self, state: S) -> Decision:
        """Who must act now, worked out from the state (called once per state by `decision`)."""

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
    def apply(self, state: S, event: Event) -> None:
        """Advance `state` in place by `event`, or raise `IllegalAction` with a code and leave `state`
        exactly as it was: every check comes before the first change (the conformance suite holds
        each engine to it). Keep a `clone()` first when the state before is still needed."""
        decision = state.decision_cache or self.decision(state)
        deciding = decision.kind
        if deciding == "over":
            raise IllegalAction("the match is over", code="match/over")
        kind, payload = event.kind, event.payload
        if type(payload) is not dict:
            payload = _as_dict(payload)
        if kind == "action":
            if deciding == "chance":
                raise IllegalAction("waiting for a chance outcome", code="turn/chance_pending")
            seat = event.seat
            if seat not in decision.seats:
                raise IllegalAction(f"seat {seat} is not to act now", code="turn/not_your_turn")
            # `type(...) is str` first: the usual case, without the isinstance call
            if payload is None or (
                type(payload.get("type")) is not str and not isinstance(payload.get("type"), str)
            ):
                raise IllegalAction('an action is a JSON object with a "type"', code="action/malformed")
            self.apply_action(state, seat, payload)
        elif kind == "chance":
            if deciding != "chance":
                raise IllegalAction("no chance outcome is expected now", code="chance/not_expected")
            self.chance_request(state).check(payload)
            self.apply_chance(state, payload)
        elif kind == "forfeit":
            if event.seat is None or not 0 <= event.seat < self.seat_count(state):
                raise IllegalAction("a forfeit names a seat", code="forfeit/unknown_seat")
            self.apply_forfeit(state, event.seat, str((payload or {}).get("reason", "")))
        else:
            raise IllegalAction(f"unknown event kind {kind!r}", code="event/unknown_kind")
        state.decision_cache = None

    @abstractmethod
    def apply_action(self, state: S, seat: int, action: Action) -> None:
        """Apply a seat's action in place; called only when `seat` is among those deciding. Check
        everything before changing anything."""

    def apply_chance(self, state: S, outcome: dict[str, Any]) -> None:
        raise IllegalAction("this game has no chance", code="chance/not_expected")

    @abstractmethod
    def apply_forfeit(self, state: S, seat: int, reason: str) -> None:
        """End the match (or drop the seat, where the game goes on without it) with `seat` ranked last."""

    @abstractmethod
    def seat_count(self, state: S) -> int:
        """How many seats this state was set up for."""

    # --- telling ---------------------------------------------------------------------------------
    def describe_event(
        self,
        event: Event,
        *,
        viewer: int | None,
        seat_names: Sequence[str],
        state_before: S | None = None,
    ) -> str:
        """The event as one sentence from `viewer`'s side (None: a spectator): "you drew Machete",
        "bob drew a card". `event.payload` is what that viewer may read: None when it is withheld
        from them, and then the sentence must not guess at it. `seat_names[seat]` names each seat.

        The listings have no state at hand (they never replay), so the sentence must stand on the
        event and the game's catalogue alone; `state_before`, the state just before the event, is
        given only where a replay is running anyway (the replay page), for the few words that need
        the board ("to THIEF" rather than "to space 7"). Override it beside the rules; this plain
        sentence (`engines.describe.plain_sentence`) is what a game gets without one."""
        return plain_sentence(event, viewer=viewer, seat_names=seat_names)

    def describe(self) -> dict[str, Any]:
        """The spec as JSON, with the names of the built-in bots."""
        return {**self.spec.describe(), "bots": sorted(self.bots())}

    # --- bots -------------------------------------------------------------------------------------
    @abstractmethod
    def bots(self) -> Mapping[str, Bot]:
        """The built-in bots by name; every game has at least `random` (`engines.bots.RandomBot`)."""


class Turn:
    """What a bot is told when it must act: its seat, the decision, and its view and legal actions,
    each computed the first time the bot reads it (a random bot never pays for a view)."""

    __slots__ = ("seat", "decision", "_game", "_state", "_view", "_legal_actions")

    def __init__(self, game: Game, state: EngineState, seat: int, decision: Decision | None = None) -> None:
        """`decision`: the state's, when the caller holds it already (the engine loop does)."""
        self.seat = seat
        self.decision = decision or game.decision(state)
        self._game, self._state = game, state
        self._view: View | None = None
        self._legal_actions: list[Action] | None = None

    @property
    def view(self) -> View:
        if self._view is None:
            self._view = self._game.view(self._state, self.seat)
        return self._view

    @property
    def legal_actions(self) -> list[Action]:
        if self._legal_actions is None:
            self._legal_actions = self._game.legal_actions(self._state, self.seat)
        return self._legal_actions


class Bot(ABC):
    """A built-in player. It sees only its seat's view, like any client of the API would."""

    name: str

    @abstractmethod
    def act(self, turn: Turn, rng: random.Random) -> Action:
        """One of `turn.legal_actions`; `rng` is a seeded generator handed in by the caller."""
