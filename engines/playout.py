"""Whole matches played without a service: chance drawn from a seed exactly as the service draws it,
every seat played by a bot. Used by the conformance tests and the benchmark."""

from __future__ import annotations

import random
from typing import Any, Mapping

from engines.bots import RandomBot
from engines.chance import draw
from engines.protocol import Bot, Event, Game, Turn


def playout(
    game: Game,
    *,
    seats: int,
    seed: bytes,
    options: Mapping[str, Any] | None = None,
    bots: list[Bot] | None = None,
    rng: random.Random | None = None,
    max_events: int = 100_000,
) -> tuple[Any, list[Event]]:
    """Play to the end; return the final state and the log. Bots default to random ones."""
    bots = bots or [RandomBot()] * seats
    rng = rng or random.Random(seed)
    state = game.new_state(seats=seats, options=options)
    log: list[Event] = []
    for seq in range(1, max_events + 1):
        decision = game.decision(state)
        if decision.kind == "over":
            return state, log
        if decision.kind == "chance":
            event = Event.chance_outcome(draw(seed, seq, game.chance_request(state)))
        else:
            seat = min(decision.seats)
            event = Event.action(seat, bots[seat].act(Turn(game, state, seat), rng))
        game.apply(state, event)
        log.append(event)
    raise RuntimeError(f"{game.spec.key}: no end after {max_events} events")
