"""The load test with faults, small: `up --web 2 --workers 2` on PostgreSQL and Redis, six Locust users
for half a minute while the bot ladders play, a worker and a web process killed midway, then the full
after-run check (tests/load/harness.py; docs/operations.md has a full run's figures). PostgreSQL only:
under CI=true a missing PostgreSQL is a failure."""

from __future__ import annotations

import pytest

from snakepit.processes import database_url
from tests.load.harness import LoadRun, report, run_load
from tests.support import require_postgresql


@pytest.fixture
def empty_queue():
    """The run's beat and ladders queue tasks that may outlive it; later tests' workers share the
    broker, so none is left for them (nor taken over from earlier tests)."""
    require_postgresql("the load test runs several web processes and workers on PostgreSQL and Redis")
    from snakepit.celery import app

    app.control.purge()
    yield
    app.control.purge()


@pytest.mark.services
def test_a_small_load_with_a_worker_and_a_web_process_killed_loses_and_duplicates_nothing(
    transactional_db, tmp_path, empty_queue
):
    require_postgresql("the load test runs several web processes and workers on PostgreSQL and Redis")
    run = run_load(
        LoadRun(users=6, seconds=30, tournaments=1, folder=tmp_path),
        database_url=database_url(),
        drain_timeout=240,
    )
    summary = report(run)
    assert [fault.split(" killed ")[1].split()[0] for fault in run.faults] == ["worker-1", "web-1"], summary
    assert run.check["acknowledged_actions"] > 0, summary
    assert run.events_after > run.events_before, summary
    server_errors = sum(
        count for counts in run.statuses.values() for code, count in counts.items() if code.startswith("5")
    )
    assert server_errors == 0, summary
    answered = {
        name: counts for name, counts in run.statuses.items() if counts.get("200") or counts.get("201")
    }
    for endpoint in (
        "POST /api/matches/{id}/actions/",
        "POST /api/ragnguns/deck-checks/",
        "GET /api/ladders/{slug}/leaderboard/",
        "GET /api/tournaments/{slug}/standings/",
    ):
        assert endpoint in answered, summary
