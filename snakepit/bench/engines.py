"""Engine figures: random playouts and in-memory replay, for every registered game, engine only.

Every game's playouts are timed after a warm-up of half the figure's time on seeds the timed playouts
never use, the same for every game: an engine's caches fill in its first few thousand games, and the
figure is the rate a process that plays on keeps, not the rate of its first two seconds.
"""

from __future__ import annotations

import snakepit.bench
from engines.playout import playout
from engines.protocol import Game
from engines.registry import all_games
from engines.replay import replay
from snakepit.bench import Figure, rate

_WARM_UP_SEEDS = 2**63  # warm-up seeds count up from here; the timed ones count up from 0


def figures() -> list[Figure]:
    return [figure for game in all_games() for figure in _figures_of(game)]


def _figures_of(game: Game) -> list[Figure]:
    key = game.spec.key
    seats = max(game.spec.min_players, 2)
    counter = iter(range(10**9))
    warm_up_counter = iter(range(_WARM_UP_SEEDS, 2**64))

    def one_playout() -> int:
        playout(game, seats=seats, seed=next(counter).to_bytes(8, "big"))
        return 1

    def one_warm_up_playout() -> int:
        playout(game, seats=seats, seed=next(warm_up_counter).to_bytes(8, "big"))
        return 1

    rate(one_warm_up_playout, snakepit.bench.BENCH_SECONDS / 2)
    playouts = Figure(
        f"engine.{key}.playouts_per_s",
        f"{game.spec.name}: random playouts ({seats} seats), engine only",
        rate(one_playout),
        "playouts/s",
    )
    logs = [playout(game, seats=seats, seed=bytes([n]))[1] for n in range(20)]

    def replay_all() -> int:
        for log in logs:
            replay(game, seats=seats, options=None, events=log)
        return sum(map(len, logs))

    replays = Figure(
        f"engine.{key}.replay_events_per_s", f"{game.spec.name}: replay", rate(replay_all), "events/s"
    )
    return [playouts, replays]
