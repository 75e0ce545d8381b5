"""The benchmark: `manage.py bench` prints these figures, and `--json` one object of them.

One module per area (`engines`, `decks`, `ratings`, `tournaments`, `store`, `workers`, `http`,
`feed`), each with a `figures()` that returns `Figure`s. A figure's `key` is its name in the JSON
output and never changes (new work adds figures; docs/bench.md lists them). Figures are printed,
never asserted: targets are read by people, not by tests.

The figures that write (store, workers, tournaments, ratings) run in the bench's own throwaway
database and its own broker (`snakepit.bench.isolation`), never in the configured ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

BENCH_SECONDS = 2.0


@dataclass(frozen=True)
class Figure:
    key: str  # stable, dotted: "engine.rat-snake.playouts_per_s"
    label: str  # for people
    value: float
    unit: str  # "s" for durations; anything else is a rate or a ratio


def rate(work: Callable[[], int], seconds: float | None = None) -> float:
    """Units of work per second, running `work` (which returns the units it did) for about `seconds`
    (default: BENCH_SECONDS as set when the figure is taken, so `bench --seconds` reaches every row)."""
    seconds = BENCH_SECONDS if seconds is None else seconds
    done, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        done += work()
    return done / elapsed
