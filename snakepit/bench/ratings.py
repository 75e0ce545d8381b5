"""Rating figures: openskill updates alone, and ratings applied and committed on one ladder by a real
worker process, in the bench's throwaway database and through its own broker.

`ratings.applied_per_s`: a ladder of `ENTRIES` bots plays `MATCHES` Rat-Snake duels in this process
(rounds through `ladder_round_create`, logs played by `matches.store.match_advance`) while no worker
runs, so every finish queues its rating work exactly as in service (the `match_finished` receiver)
and a backlog builds up in the broker. A warm-up ladder finished one match first; its task is first
in the queue. Then one worker starts: the clock starts when the warm-up match is rated (the worker
is up) and stops when every match of the big ladder is rated; the figure is the ratings of the big
ladder committed in between, per second. Worker start-up is left out, the queueing is not.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from matches.store import match_advance
from ratings import services, skill
from ratings.models import RatedMatch
from ratings.rounds import ladder_round_create
from snakepit.bench import Figure, rate
from snakepit.bench.isolation import bench_broker
from snakepit.processes import celery_process

MATCHES = 2000
ENTRIES = 200


def figures() -> list[Figure]:
    rows = []
    for players in (2, 4):
        skills = [skill.Skill(25.0 + seat, 8.0 - seat / 2) for seat in range(players)]
        ranks = list(range(1, players + 1))

        def rate_many() -> int:
            for _ in range(100):
                skill.rate(skill.DEFAULT_MODEL, skills, ranks)
            return 100

        rows.append(
            Figure(
                f"ratings.openskill_{players}p_per_s",
                f"Rating updates, {players}-player matches (openskill Plackett-Luce)",
                rate(rate_many),
                "matches/s",
            )
        )
    rows.append(
        Figure(
            "ratings.applied_per_s",
            f"Ratings applied and committed on one ladder by one worker ({MATCHES:,}-match backlog, {ENTRIES} entries)",
            applied_per_s(),
            "ratings/s",
        )
    )
    return rows


def applied_per_s(matches: int = MATCHES, entries: int = ENTRIES) -> float:
    with tempfile.TemporaryDirectory() as folder, bench_broker(Path(folder)) as env:
        warm_up = _bot_ladder("bench-warm-up", 2)
        _finish_matches(warm_up, 1)
        ladder = _bot_ladder("bench-ratings", entries)
        finished = _finish_matches(ladder, matches)
        log = Path(folder) / "worker.log"
        with celery_process("worker", env, log):
            _wait(
                lambda: RatedMatch.objects.filter(ladder=warm_up).exists(),
                120,
                "the warm-up match to be rated",
                log,
            )
            started, already = time.perf_counter(), RatedMatch.objects.filter(ladder=ladder).count()
            _wait(
                lambda: RatedMatch.objects.filter(ladder=ladder).count() >= finished,
                900,
                f"{finished} ratings",
                log,
            )
            elapsed = time.perf_counter() - started
    return (finished - already) / elapsed


def _bot_ladder(slug: str, entries: int):
    ladder = services.ladder_create(game_key="rat-snake", name=slug, slug=slug, options={"passes": 1})
    for _ in range(entries):
        services.ladder_join(ladder=ladder, bot="random")
    return ladder


def _finish_matches(ladder, at_least: int) -> int:
    """Play rounds in this process until `at_least` of the ladder's matches have finished."""
    rng, finished = random.Random(0), 0
    while finished < at_least:
        for match in ladder_round_create(ladder_id=ladder.pk, rng=rng, bots_play="caller").matches:
            match_advance(match_id=match.pk)
            finished += 1
    return finished


def _wait(condition: Callable[[], bool], timeout: float, what: str, log: Path) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            raise RuntimeError(f"the worker did not finish {what} in {timeout} s\n{tail}")
        time.sleep(0.02)
