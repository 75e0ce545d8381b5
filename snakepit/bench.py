"""The benchmark's figures. Each entry measures one thing and returns (value, unit); `manage.py bench`
prints them. Figures are printed, never asserted: targets are read by people, not by tests."""

from __future__ import annotations

import time
from contextlib import ExitStack
from typing import Callable

from engines.playout import playout
from engines.registry import all_games
from engines.replay import replay

BENCH_SECONDS = 2.0


def _rate(work: Callable[[], int], seconds: float | None = None) -> float:
    """Units of work per second, running `work` (which returns the units it did) for about `seconds`
    (default: BENCH_SECONDS as set when the figure is taken, so `bench --seconds` reaches every row)."""
    seconds = BENCH_SECONDS if seconds is None else seconds
    done, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        done += work()
    return done / elapsed


def engine_figures() -> list[tuple[str, float, str]]:
    rows = []
    for game in all_games():
        seats = max(game.spec.min_players, 2)
        counter = iter(range(10**9))

        def one_playout() -> int:
            playout(game, seats=seats, seed=next(counter).to_bytes(8, "big"))
            return 1

        rows.append((f"{game.spec.name}: random playouts ({seats} seats), engine only", _rate(one_playout), "playouts/s"))
        logs = [playout(game, seats=seats, seed=bytes([n]))[1] for n in range(20)]

        def replay_all() -> int:
            for log in logs:
                replay(game, seats=seats, options=None, events=log)
            return sum(map(len, logs))

        rows.append((f"{game.spec.name}: replay", _rate(replay_all), "events/s"))
    return rows


def store_figures() -> list[tuple[str, float, str]]:
    """Appends through the services into the configured database (a throwaway copy: see the command)."""
    from matches.services import SeatSpec, match_create
    from matches.store import match_advance

    rows = []
    for chunk, label in ((1, "one transaction per event"), (200, "chunks of 200 events")):
        def play_one() -> int:
            match = match_create(
                game_key="rat-snake",
                seats=[SeatSpec(bot="random"), SeatSpec(bot="random")],
                bots_play="caller",
            )
            return match_advance(match_id=match.pk, chunk=chunk)

        rows.append((f"Event store appends, Rat-Snake bot matches, {label}", _rate(play_one), "events/s"))
    return rows


def deck_figures() -> list[tuple[str, float, str]]:
    """Rag'n'Guns deck checks per second: the validator alone (engines/ragnguns/bench.py), then the
    same decks POSTed as JSON to /api/ragnguns/deck-checks/ through Django's test Client, in process
    (parsing, the view, serialising; no server, no socket). Neither touches the database."""
    import json

    from django.conf import settings
    from django.test import Client, override_settings

    from engines.ragnguns.bench import deck_check_work, sample_decks

    validator = _rate(deck_check_work(100))
    rows = [("Rag'n'Guns: deck checks, validator only", validator, "checks/s")]
    bodies = [
        json.dumps({"format": key, "gunslinger": gunslinger, "cards": cards})
        for key, gunslinger, cards in sample_decks(100)
    ]
    client = Client()

    def post_all() -> int:
        for body in bodies:
            response = client.post("/api/ragnguns/deck-checks/", body, content_type="application/json")
            if response.status_code != 200:
                raise RuntimeError(f"deck check: HTTP {response.status_code}: {response.content[:200]!r}")
        return len(bodies)

    # The test Client calls itself "testserver"; a production ALLOWED_HOSTS may not list it.
    with override_settings(ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "testserver"]):
        through_api = _rate(post_all)
    rows.append(("Rag'n'Guns: deck checks through the API (JSON, in-process)", through_api, "checks/s"))
    return rows


def rating_figures() -> list[tuple[str, float, str]]:
    from ratings import skill

    rows = []
    for players in (2, 4):
        skills = [skill.Skill(25.0 + seat, 8.0 - seat / 2) for seat in range(players)]
        ranks = list(range(1, players + 1))

        def rate_many() -> int:
            for _ in range(100):
                skill.rate(skill.DEFAULT_MODEL, skills, ranks)
            return 100

        rows.append((f"Rating updates, {players}-player matches (openskill Plackett-Luce)", _rate(rate_many), "matches/s"))
    return rows


def worker_figures(matches: int = 30) -> list[tuple[str, float, str]]:
    """Rat-Snake bot matches played by real Celery worker processes, through the broker and the
    configured database (a throwaway copy: see the command)."""
    import tempfile
    from pathlib import Path

    from matches.models import Match
    from matches.services import SeatSpec, match_create
    from matches.tasks import match_play
    from snakepit.processes import celery_process, private_broker

    rows = []
    for workers in (1, 2):
        created = [
            match_create(
                game_key="rat-snake", seats=[SeatSpec(bot="heuristic"), SeatSpec(bot="random")],
                options={"passes": 2}, bots_play="caller",
            ).pk
            for _ in range(matches)
        ]
        with tempfile.TemporaryDirectory() as folder, private_broker(Path(folder)) as env:
            logs = [Path(folder) / f"worker-{n}.log" for n in range(workers)]
            with ExitStack() as stack:
                for log in logs:
                    stack.enter_context(celery_process("worker", env, log))
                started = time.perf_counter()
                for match_id in created:
                    match_play.delay(match_id)
                while Match.objects.filter(pk__in=created, status=Match.Status.RUNNING).exists():
                    if time.perf_counter() - started > 300:
                        raise RuntimeError(f"workers did not finish {matches} matches in 300 s; see {logs}")
                    time.sleep(0.05)
                elapsed = time.perf_counter() - started
        rows.append((f"Bot matches played by {workers} worker process(es), Rat-Snake duels", matches / elapsed * 60, "matches/min"))
    return rows


def tournament_figures() -> list[tuple[str, float, str]]:
    """Swiss pairing of one round after three simulated rounds, and full standings, at scale."""
    from tournaments.formats.swiss import bench_swiss
    from tournaments.formats.tiebreaks import bench_standings

    rows = [(f"Swiss pairing, {players:,} players (one round after 3)", bench_swiss(players), "s") for players in (100, 1_000, 10_000)]
    rows.append(("Standings with all tiebreaks, 10,000 players, 14 rounds", bench_standings(10_000), "s"))
    return rows
