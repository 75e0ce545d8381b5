"""Bot matches played by real Celery worker processes, through the bench's own broker and throwaway
database: Rat-Snake duels by one and by two workers (the first figures, kept), and every game's bot
matches by two workers."""

from __future__ import annotations

import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from django.contrib.auth import get_user_model

from bots.models import BotVersion
from bots.sandbox import namespaces_available
from bots.services import bot_match_create, bot_version_upload, bot_version_validate
from bots.tasks import bot_match_play
from engines.registry import game_keys, get_game
from matches.models import Match
from matches.services import SeatSpec, match_create
from matches.tasks import match_play
from snakepit.bench import Figure
from snakepit.bench.isolation import bench_broker
from snakepit.processes import celery_process, worker_ready

# Rat-Snake's duels as the first worker figures played them; other games with their default options.
_OPTIONS = {"rat-snake": {"passes": 2}}


def figures(matches: int = 300) -> list[Figure]:
    """`matches` Rat-Snake duels (a third as many matches of each other game, whose matches are
    longer: Rat-Snake's take about a twentieth of a second of the two workers' time)."""
    rows = []
    for workers in (1, 2):
        keys = game_keys() if workers == 2 else ["rat-snake"]
        with tempfile.TemporaryDirectory() as folder, bench_broker(Path(folder)) as env:
            logs = [Path(folder) / f"worker-{n}.log" for n in range(workers)]
            with ExitStack() as stack:
                processes = [stack.enter_context(celery_process("worker", env, log)) for log in logs]
                for log, process in zip(logs, processes):
                    worker_ready(log, process)
                for key in keys:
                    count = matches if key == "rat-snake" else max(1, matches // 3)
                    per_min = _matches_per_min(key, count, logs)
                    name = get_game(key).spec.name
                    if key == "rat-snake":
                        rows.append(
                            Figure(
                                f"workers.{workers}.matches_per_min",
                                f"Bot matches played by {workers} worker process(es), Rat-Snake duels",
                                per_min,
                                "matches/min",
                            )
                        )
                    if workers == 2:
                        rows.append(
                            Figure(
                                f"workers.2.{key}.matches_per_min",
                                f"{name}: bot matches played by 2 worker processes",
                                per_min,
                                "matches/min",
                            )
                        )
    if namespaces_available():
        rows.append(sandboxed_figure(matches=matches))
    else:
        print("workers.2.sandboxed_matches_per_min: skipped, no namespaces to fence bots in", file=sys.stderr)
    return rows


def _matches_per_min(key: str, matches: int, logs: list[Path]) -> float:
    """`matches` bot matches of the game queued at once for the running workers (`match_play`, as
    every bot match is played): the game's `heuristic` bot, where it has one, against `random` ones."""
    game = get_game(key)
    seats = max(game.spec.min_players, 2)
    first = "heuristic" if "heuristic" in game.bots() else "random"
    created = [
        match_create(
            game_key=key,
            seats=[SeatSpec(bot=first), *[SeatSpec(bot="random")] * (seats - 1)],
            options=_OPTIONS.get(key),
            bots_play="caller",
        ).pk
        for _ in range(matches)
    ]
    started = time.perf_counter()
    for match_id in created:
        match_play.delay(match_id)
    while Match.objects.filter(pk__in=created, status=Match.Status.RUNNING).exists():
        if time.perf_counter() - started > 300:
            raise RuntimeError(f"workers did not finish {matches} {key} matches in 300 s; see {logs}")
        time.sleep(0.05)
    return matches / (time.perf_counter() - started) * 60


# An uploaded bot as docs/bots.md describes one: a random legal action per decision.
_RANDOM_BOT = """\
import json, random, sys
for line in sys.stdin:
    print(json.dumps({"action": random.choice(json.loads(line)["legal_actions"])}), flush=True)
"""


def sandboxed_figure(matches: int = 300, workers: int = 2) -> Figure:
    """Rat-Snake duels between two uploaded bots, each started in its sandbox once per match, played
    by `workers` worker processes (bots.tasks.bot_match_play), as a ladder's matches are."""
    owner = get_user_model().objects.create_user(username=f"bench-author-{time.monotonic_ns()}")
    versions = []
    for name in ("bench-a", "bench-b"):
        version = bot_version_upload(owner=owner, name=name, game_key="rat-snake", source=_RANDOM_BOT)
        version = bot_version_validate(version_id=version.pk)
        if version.status != BotVersion.Status.PASSED:
            raise RuntimeError(f"the bench's bot failed its validation:\n{version.log}")
        versions.append(version)
    created = [bot_match_create(versions=versions, options={"passes": 2}).pk for _ in range(matches)]
    with tempfile.TemporaryDirectory() as folder, bench_broker(Path(folder)) as env:
        logs = [Path(folder) / f"sandboxed-worker-{n}.log" for n in range(workers)]
        with ExitStack() as stack:
            processes = [stack.enter_context(celery_process("worker", env, log)) for log in logs]
            for log, process in zip(logs, processes):
                worker_ready(log, process)
            started = time.perf_counter()
            for match_id in created:
                bot_match_play.delay(match_id)
            while Match.objects.filter(pk__in=created, status=Match.Status.RUNNING).exists():
                if time.perf_counter() - started > 300:
                    raise RuntimeError(f"workers did not finish {matches} sandboxed matches in 300 s: {logs}")
                time.sleep(0.05)
            elapsed = time.perf_counter() - started
    return Figure(
        f"workers.{workers}.sandboxed_matches_per_min",
        f"Uploaded-bot matches played in sandboxes by {workers} worker processes, Rat-Snake duels",
        matches / elapsed * 60,
        "matches/min",
    )
