"""Replay: a fold of the event log through an engine, returning the state *and* the first failure.

Like scalachess's `Replay`, a broken log does not raise: the caller gets the state reached just
before the bad event, how many events applied, and the typed error, and decides what to do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from engines.errors import IllegalAction
from engines.protocol import Event, Game

S = TypeVar("S")


@dataclass(frozen=True)
class ReplayResult(Generic[S]):
    state: S
    applied: int
    failure: IllegalAction | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def replay_from(game: Game[S], state: S, events: Iterable[Event]) -> ReplayResult[S]:
    """Apply `events` in order to `state`, advancing it in place (clone it first to keep it), and stop
    at the first illegal one, which leaves the state as the events before it made it."""
    applied = 0
    for event in events:
        try:
            game.apply(state, event)
        except IllegalAction as failure:
            return ReplayResult(state, applied, failure)
        applied += 1
    return ReplayResult(state, applied)


def replay(
    game: Game[S], *, seats: int, options: Mapping[str, Any] | None, events: Iterable[Event]
) -> ReplayResult[S]:
    """Rebuild a match from nothing but its set-up and its log."""
    return replay_from(game, game.new_state(seats=seats, options=options), events)
