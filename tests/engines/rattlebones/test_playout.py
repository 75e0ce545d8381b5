"""Rattlebones' random playouts through the one engine loop (`engines.playout.play_forward`, every
event through `Game.apply`): exactly the games recorded before the engine's second, bench-only
driver went away, for every seat count and both readings of x2, over enough
games to reach the rare moments (a Gamble, an x2 choice, a Roll Again, selling stars, a thief)."""

from __future__ import annotations

import hashlib
import json

import pytest

from engines.playout import playout
from engines.rattlebones.spec import DIE_ACTIONS, POINTS_SIDES

from . import GAME


def _moments(log) -> set[str]:
    seen = set()
    for event in log:
        payload = event.payload
        if event.kind == "action":
            seen.add(payload["type"])
            seen.update(key for key in payload if key in ("sell", "steal", "with"))
    return seen


# SHA-256 of the events (kind, seat, payload) and the final outcome and view of the random playouts
# from seeds 0 .. n-1 (8 bytes, big-endian), as the engine of 26 November 2026 (75ed099) played them,
# before it had a driver of its own for random playouts; the rules must keep playing exactly those.
RECORDED = {
    (2, DIE_ACTIONS, 300): "15c1335e1661985d54e9ffdc4858f64249e7d2d9a0623737aa17675f451f9b0c",
    (2, POINTS_SIDES, 100): "73e29af2ddb1808a62f712fbeafa5b3b3f597256870930c43a7d887d171881ce",
    (3, DIE_ACTIONS, 300): "a3ef768a52eec47cc2200d415677ef8961d52d83212a6e6f7b323df1188348b4",
    (3, POINTS_SIDES, 100): "f2b9ab9e4e7e1d97f0d4666b12e07fa6aa2ad6a27c86d1d30b3b54f82244f1e3",
    (4, DIE_ACTIONS, 300): "4db9c7488a30bde0b7458c3b3a92824e021ba0fd9eea3abf396249ab82898a11",
    (4, POINTS_SIDES, 100): "1451617a90fe35dd95ba78b51f258383e87d349b324ab7d5670af4d39f88b1e8",
}


@pytest.mark.parametrize(("seats", "x2_points", "games"), list(RECORDED), ids=lambda value: str(value))
def test_random_games_play_the_recorded_logs(seats: int, x2_points: str, games: int) -> None:
    digest, moments = hashlib.sha256(), set()
    for number in range(games):
        state, log = playout(
            GAME, seats=seats, seed=number.to_bytes(8, "big"), options={"x2_points": x2_points}
        )
        moments |= _moments(log)
        for event in log:
            digest.update(json.dumps([event.kind, event.seat, event.payload], sort_keys=True).encode())
        final = [GAME.outcome(state).to_json(), GAME.view(state, None)]
        digest.update(json.dumps(final, sort_keys=True).encode())
    assert digest.hexdigest() == RECORDED[(seats, x2_points, games)]
    # The games reach the rare moments; an x2 choice ("double") is rarest, seen in the longer sets.
    assert {"roll", "use_die", "with", "sell", "steal"} <= moments
    assert "double" in moments or games < 300


def test_a_playout_stops_at_max_events() -> None:
    with pytest.raises(RuntimeError, match="no end after 40 events"):
        playout(GAME, seats=2, seed=b"short", max_events=40)
