"""Engine figures, for every registered game, engine only (no database): whole matches played by the
service's own engine loop (`engines.playout.play_forward`, which `matches.store` runs), and
in-memory replay.

- `playouts_per_s`: `engines.playout.playout`, random bots at every seat sharing one generator.
- `service_playouts_per_s`: the same loop called as the store calls it, the game's own `random` bot
  at every seat with the service's generator per move (`engines.playout.bot_rng`).

Every game's playouts are timed after a warm-up of half the figure's time on seeds the timed playouts
never use, the same for every game: an engine's caches fill in its first few thousand games, and the
figure is the rate a process that plays on keeps, not the rate of its first two seconds.
"""

from __future__ import annotations

from collections.abc import Callable

import snakepit.bench
from engines.playout import play_forward, playout, service_bot_rngs
from engines.protocol import Game
from engines.registry import all_games
from engines.replay import replay
from snakepit.bench import Figure, rate

_WARM_UP_SEEDS = 2**63  # warm-up seeds count up from here; the timed ones count up from 0
_NO_END = 100_000  # events: a random game that has not ended by then is a bug (`playout` says so)


def figures() -> list[Figure]:
    return [figure for game in all_games() for figure in _figures_of(game)]


def _timed(play: Callable[[bytes], object]) -> float:
    """Whole matches per second of `play(seed)`, after the warm-up on other seeds."""
    counter = iter(range(10**9))
    warm_up_counter = iter(range(_WARM_UP_SEEDS, 2**64))

    def one() -> int:
        play(next(counter).to_bytes(8, "big"))
        return 1

    def one_warm_up() -> int:
        play(next(warm_up_counter).to_bytes(8, "big"))
        return 1

    rate(one_warm_up, snakepit.bench.BENCH_SECONDS / 2)
    return rate(one)


def _figures_of(game: Game) -> list[Figure]:
    key = game.spec.key
    seats = max(game.spec.min_players, 2)

    def one_playout(seed: bytes) -> None:
        playout(game, seats=seats, seed=seed)

    def one_service_playout(seed: bytes) -> None:
        state = game.new_state(seats=seats, options=None)
        bots = [game.bots()["random"]] * seats
        play_forward(
            game, state, bots=bots, after=0, chance_key=seed, rng_for=service_bot_rngs(seed), limit=_NO_END
        )
        if game.outcome(state) is None:
            raise RuntimeError(f"{key}: no end after {_NO_END} events")

    playouts = Figure(
        f"engine.{key}.playouts_per_s",
        f"{game.spec.name}: random playouts ({seats} seats), engine only",
        _timed(one_playout),
        "playouts/s",
    )
    service_playouts = Figure(
        f"engine.{key}.service_playouts_per_s",
        f"{game.spec.name}: random bot matches ({seats} seats), the service's engine loop",
        _timed(one_service_playout),
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
    return [playouts, service_playouts, replays]
