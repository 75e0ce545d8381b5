"""Rat-Snake bot matches played by real Celery worker processes, through the bench's own broker and
throwaway database."""

from __future__ import annotations

import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from matches.models import Match
from matches.services import SeatSpec, match_create
from matches.tasks import match_play
from snakepit.bench import Figure
from snakepit.bench.isolation import bench_broker
from snakepit.processes import celery_process, worker_ready


def figures(matches: int = 300) -> list[Figure]:
    rows = []
    for workers in (1, 2):
        created = [
            match_create(
                game_key="rat-snake", seats=[SeatSpec(bot="heuristic"), SeatSpec(bot="random")],
                options={"passes": 2}, bots_play="caller",
            ).pk
            for _ in range(matches)
        ]
        with tempfile.TemporaryDirectory() as folder, bench_broker(Path(folder)) as env:
            logs = [Path(folder) / f"worker-{n}.log" for n in range(workers)]
            with ExitStack() as stack:
                processes = [stack.enter_context(celery_process("worker", env, log)) for log in logs]
                for log, process in zip(logs, processes):
                    worker_ready(log, process)
                started = time.perf_counter()
                for match_id in created:
                    match_play.delay(match_id)
                while Match.objects.filter(pk__in=created, status=Match.Status.RUNNING).exists():
                    if time.perf_counter() - started > 300:
                        raise RuntimeError(f"workers did not finish {matches} matches in 300 s; see {logs}")
                    time.sleep(0.05)
                elapsed = time.perf_counter() - started
        rows.append(Figure(
            f"workers.{workers}.matches_per_min", f"Bot matches played by {workers} worker process(es), Rat-Snake duels",
            matches / elapsed * 60, "matches/min",
        ))
    return rows
