"""The health endpoints the probes use: /healthz (the process answers) and /readyz (the database
answers; the broker and the cache answer, or the process serves degraded), both JSON, neither signed
in, neither redirected to HTTPS behind TLS."""

from __future__ import annotations

import pytest
from django.db import OperationalError

from snakepit import health


def test_liveness_answers_without_touching_the_database(client):
    # No django_db mark: any database access here would raise.
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "alive"}
    assert "no-store" in response["Cache-Control"]


@pytest.mark.django_db
def test_readiness_checks_the_database_the_broker_and_the_cache(client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "status": "ready",
        "checks": {"database": "ok", "broker": "ok", "cache": "ok"},
    }


@pytest.mark.django_db
def test_an_unreachable_broker_leaves_the_process_serving_degraded_without_saying_why(client, settings):
    # Nothing listens on port 1: the connection is refused at once. Writes still land without the
    # broker (the sweeps queue their tasks later), so the balancer keeps sending traffic.
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["checks"] == {"database": "ok", "broker": "unavailable", "cache": "ok"}
    assert "sweeps" in body["detail"]
    assert "127.0.0.1" not in response.content.decode() and "refused" not in response.content.decode().lower()


@pytest.mark.django_db
def test_a_missing_filesystem_broker_folder_makes_the_process_not_ready(client, settings, tmp_path):
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(tmp_path / "gone")}
    assert client.get("/readyz").json()["checks"]["broker"] == "unavailable"
    (tmp_path / "gone").mkdir()
    assert client.get("/readyz").json()["checks"]["broker"] == "ok"


@pytest.mark.django_db
def test_a_failing_database_makes_the_process_not_ready_but_still_alive(client, monkeypatch):
    class Broken:
        def __enter__(self):
            raise OperationalError("connection to server failed")

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(health.connection, "cursor", lambda: Broken())
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"] == "unavailable"
    assert client.get("/healthz").status_code == 200


def test_probes_are_read_only(client):
    assert client.post("/healthz").status_code == 405
    assert client.delete("/readyz").status_code == 405


@pytest.mark.django_db
def test_behind_tls_probes_over_plain_http_are_answered_while_pages_are_redirected(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/readyz").status_code == 200
    assert client.get("/healthz").status_code == 200
    assert client.get("/api/games/").status_code == 301


def test_the_shell_check_for_workers_and_beat_exits_by_readiness(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "SNAKEPIT_VAR_DIR": str(tmp_path)}

    def check(**extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "snakepit.health"],
            cwd=root,
            env={**env, **extra},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    ready = check()
    assert (ready.returncode, ready.stdout.strip()) == (0, "ready"), ready.stderr
    unreachable = check(CELERY_BROKER_URL="redis://127.0.0.1:1/0")
    assert unreachable.returncode == 1 and unreachable.stdout.startswith("broker: ")
