"""`manage.py bench --json` prints one object whose keys never change (docs/bench.md)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from engines.registry import game_keys
from tests.games import TEST_GAMES


# The deck checks read the ban lists in effect, in the bench's own throwaway database (made and
# dropped outside any test transaction).
@pytest.mark.django_db(transaction=True)
def test_bench_json_prints_the_engine_and_deck_figures_under_their_stable_keys():
    out = StringIO()
    call_command("bench", "--json", "--seconds", "0.05", "--only", "engines", "decks", stdout=out)
    figures = json.loads(out.getvalue())
    expected = {"decks.api_checks_per_s", "decks.validator_checks_per_s"}
    for key in game_keys():
        expected |= {
            f"engine.{key}.playouts_per_s",
            f"engine.{key}.service_playouts_per_s",
            f"engine.{key}.replay_events_per_s",
        }
    assert expected <= set(figures)
    assert all(isinstance(value, float) and value > 0 for value in figures.values())


@pytest.mark.django_db(transaction=True)
def test_bench_json_prints_the_store_figures_with_the_listing_ratio():
    out = StringIO()
    call_command("bench", "--json", "--seconds", "0.05", "--only", "store", stdout=out)
    figures = json.loads(out.getvalue())
    assert {
        "ceiling.pg_insert_commit_per_s",
        "store.append_single_vs_ceiling",
        "store.append_batched_vs_ceiling",
        "store.listing_ms_5000_vs_50",
    } <= set(figures)
    # A listing that read the whole log (let alone replayed it) would cost a hundred times as much
    # on 5,000 events as on 50; a figure this far off means that is back.
    assert 0 < figures["store.listing_ms_5000_vs_50"] < 10


@pytest.mark.django_db(transaction=True)
def test_the_bench_worker_figure_never_touches_the_real_database_or_queue(tmp_path, monkeypatch):
    """A worker serves the configured queue (Redis under CI) while the bench measures its own workers:
    the real worker receives nothing, the real queue does not move, the real database gains nothing."""
    from matches.models import Match
    from snakepit.bench import workers
    from snakepit.bench.isolation import throwaway_database
    from snakepit.processes import celery_process, private_broker, worker_ready

    # The bench's workers are processes of their own, which know the shipped games only: the test-only
    # games registered in this process (tests/games) are left out of its figures here.
    shipped = [key for key in game_keys() if key not in TEST_GAMES]
    monkeypatch.setattr(workers, "game_keys", lambda: shipped)
    matches_before = Match.objects.count()
    _real_queue_empty()  # what earlier tests queued for no worker is not this test's to serve
    log = tmp_path / "real-worker.log"
    with private_broker(tmp_path / "real") as env, celery_process("worker", env, log) as real_worker:
        worker_ready(log, real_worker)
        queued_before = _real_queue_length(tmp_path / "real")
        with throwaway_database():
            figures = workers.figures(matches=6)
        values = {figure.key: figure.value for figure in figures}
        assert len(values) == len(figures)
        assert set(values) == {
            "workers.1.matches_per_min",
            "workers.2.matches_per_min",
            *(f"workers.2.{key}.matches_per_min" for key in shipped),
            "workers.2.sandboxed_matches_per_min",
        }
        assert all(value > 0 for value in values.values())
        # the first two-worker figure is the Rat-Snake one, under its old key
        assert values["workers.2.matches_per_min"] == values["workers.2.rat-snake.matches_per_min"]
        assert _real_queue_length(tmp_path / "real") == queued_before
        assert "received" not in log.read_text(errors="replace"), "the real worker was handed a bench task"
    assert Match.objects.count() == matches_before


def _real_queue_length(folder) -> int:
    from django.conf import settings

    if settings.CELERY_BROKER_URL.startswith("redis"):
        import redis

        return redis.Redis.from_url(settings.CELERY_BROKER_URL).llen("celery")
    return len(list((folder / "queue").glob("*")))


def _real_queue_empty() -> None:
    from django.conf import settings

    if settings.CELERY_BROKER_URL.startswith("redis"):
        import redis

        redis.Redis.from_url(settings.CELERY_BROKER_URL).delete("celery")


HTTP_ENDPOINTS = ("games", "match", "view", "events", "standings", "leaderboard", "ladders", "home", "action")


@pytest.mark.django_db(transaction=True)
def test_bench_http_answers_every_endpoint_from_a_real_server_under_its_stable_keys(monkeypatch):
    """A small run: the bench's own web server, two clients, a fifth of a second per endpoint, and
    a few idle connections and stream subscribers."""
    import snakepit.bench
    from snakepit.bench import http
    from snakepit.bench.isolation import throwaway_database

    monkeypatch.setattr(snakepit.bench, "BENCH_SECONDS", 0.2)

    with throwaway_database():
        figures = {
            figure.key: figure.value
            for figure in http.figures(clients=2, idle_steps=(20, 50), fanout_subscribers=5)
        }
    expected = {"http.ceiling_rps", "live.idle_connections_held", "live.fanout_p99_ms"} | {
        f"http.{endpoint}_{unit}" for endpoint in HTTP_ENDPOINTS for unit in ("rps", "p99_ms")
    }
    assert set(figures) == expected
    # Every step's idle connections are open at once; on a loaded machine the other requests' p99
    # may pass 100 ms at the first step already, so 0 is a figure too (a target, not a test).
    assert figures.pop("live.idle_connections_held") in (0, 20, 50)
    assert {key: value for key, value in figures.items() if not value > 0} == {}


@pytest.mark.django_db(transaction=True)
def test_bench_feed_times_announcements_from_this_process_to_a_subscriber_process(capsys):
    """Redis pub/sub where Redis is configured, LISTEN/NOTIFY where the database is PostgreSQL; on the
    embedded default neither applies and both are left out, saying so."""
    from django.conf import settings
    from django.db import connection

    from snakepit.bench import feed
    from snakepit.bench.isolation import throwaway_database

    with throwaway_database():
        figures = {figure.key: figure.value for figure in feed.figures(latency_count=20, rate_count=100)}
    mechanisms = (["redis"] if settings.REDIS_URL else []) + (
        ["pg_notify"] if connection.vendor == "postgresql" else []
    )
    assert set(figures) == {
        f"live.feed_{mechanism}_{unit}" for mechanism in mechanisms for unit in ("p50_ms", "p99_ms", "per_s")
    }
    assert {key: value for key, value in figures.items() if not value > 0} == {}
    for mechanism in mechanisms:
        assert figures[f"live.feed_{mechanism}_p50_ms"] <= figures[f"live.feed_{mechanism}_p99_ms"]
    said = capsys.readouterr().err
    assert ("live.feed_redis_*: not applicable" in said) == ("redis" not in mechanisms)
    assert ("live.feed_pg_notify_*: not applicable" in said) == ("pg_notify" not in mechanisms)
