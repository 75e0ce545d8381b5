"""The load test with faults, small: `up --web 2 --workers 2` on PostgreSQL and a Redis of the run's
own, six Locust users for 40 s while the bot ladders play and 200 slow connections are held open,
a worker and a web process killed and Redis restarted empty midway, then the full after-run check
(tests/load/harness.py; docs/operations.md has a full run's figures). PostgreSQL only: under CI=true
a missing PostgreSQL is a failure."""

from __future__ import annotations

import pytest

from snakepit.processes import database_url
from tests.load.harness import LoadRun, report, run_load, server_errors
from tests.support import require_postgresql


@pytest.mark.services
def test_a_small_load_under_every_fault_answers_no_5xx_and_loses_and_duplicates_nothing(
    transactional_db, tmp_path
):
    require_postgresql("the load test runs several web processes and workers on PostgreSQL and Redis")
    run = run_load(
        LoadRun(users=6, seconds=40, tournaments=1, folder=tmp_path, slow_connections=200),
        database_url=database_url(),
        drain_timeout=240,
    )
    summary = report(run)
    faults = [fault.split(" ", 1)[1] for fault in run.faults]
    assert [fault.split(" (")[0] for fault in faults] == [
        "killed worker-1",
        "killed web-1",
        "restarted Redis",
    ], summary
    assert run.check["acknowledged_actions"] > 0, summary
    assert run.events_after > run.events_before, summary
    assert server_errors(run) == 0, summary
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
    # The slow connections were held while the others were answered: nearly all of them open
    # throughout (those on the killed web process come back), and every kind reached the service.
    slow = run.slow
    assert slow["held_median"] >= 180 and slow["held_max"] <= 200, summary
    assert slow["statuses"]["stream"].get("200"), summary
    assert slow["statuses"]["trickled"].get("200") or slow["statuses"]["trickled"].get("400"), summary
