"""Engine figures: random playouts and in-memory replay, for every registered game, engine only."""

from __future__ import annotations

from engines.playout import playout
from engines.registry import all_games
from engines.replay import replay
from snakepit.bench import Figure, rate


def figures() -> list[Figure]:
    rows = []
    for game in all_games():
        key = game.spec.key
        seats = max(game.spec.min_players, 2)
        counter = iter(range(10**9))

        def one_playout() -> int:
            playout(game, seats=seats, seed=next(counter).to_bytes(8, "big"))
            return 1

        rows.append(Figure(
            f"engine.{key}.playouts_per_s", f"{game.spec.name}: random playouts ({seats} seats), engine only",
            rate(one_playout), "playouts/s",
        ))
        logs = [playout(game, seats=seats, seed=bytes([n]))[1] for n in range(20)]

        def replay_all() -> int:
            for log in logs:
                replay(game, seats=seats, options=None, events=log)
            return sum(map(len, logs))

        rows.append(Figure(f"engine.{key}.replay_events_per_s", f"{game.spec.name}: replay", rate(replay_all), "events/s"))
    return rows
