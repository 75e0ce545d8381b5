"""`Rattlebones.random_playout`, the engine's own driver of a random playout: the same log and the same
final state as the protocol path (`Game.apply` on every event, the random bot reached through `Turn`),
for every seat count and both readings of x2, over enough games to reach the rare moments (a Gamble,
an x2 choice, a Roll Again, selling stars, a thief)."""

from __future__ import annotations

import random

import pytest

from engines.bots import RandomBot
from engines.playout import playout
from engines.rattlebones.spec import DIE_ACTIONS, POINTS_SIDES

from . import GAME


class _ThroughTurn(RandomBot):
    """The random bot reached through `Turn` and `act`: `playout` then drives every event through
    `Game.apply` itself."""


def _moments(log) -> set[str]:
    seen = set()
    for event in log:
        payload = event.payload
        if event.kind == "action":
            seen.add(payload["type"])
            seen.update(key for key in payload if key in ("sell", "steal", "with"))
    return seen


def test_the_engine_driven_playout_logs_what_the_protocol_logs() -> None:
    moments: set[str] = set()
    for seats in (2, 3, 4):
        for x2_points in (DIE_ACTIONS, POINTS_SIDES):
            options = {"x2_points": x2_points}
            for number in range(12):
                seed = f"{seats}/{x2_points}/{number}".encode()
                fast_state, fast = playout(GAME, seats=seats, seed=seed, options=options)
                slow_state, slow = playout(
                    GAME, seats=seats, seed=seed, options=options, bots=[_ThroughTurn()] * seats
                )
                assert fast == slow
                assert GAME.view(fast_state, None) == GAME.view(slow_state, None)
                assert GAME.outcome(fast_state) == GAME.outcome(slow_state)
                moments |= _moments(fast)
    assert {"roll", "use_die", "with", "sell", "steal", "double"} <= moments


def test_the_engine_driven_playout_is_used_only_for_plain_random_bots_and_generator() -> None:
    """Another generator (or bot) takes the protocol path, and still plays the same game."""

    class OwnRandom(random.Random):
        pass

    seed = b"own"
    _, fast = playout(GAME, seats=2, seed=seed)
    _, own = playout(GAME, seats=2, seed=seed, rng=OwnRandom(seed))
    assert fast == own


def test_the_engine_driven_playout_stops_at_max_events() -> None:
    with pytest.raises(RuntimeError, match="no end after 40 events"):
        playout(GAME, seats=2, seed=b"short", max_events=40)
