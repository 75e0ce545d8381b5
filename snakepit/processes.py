"""Celery worker and beat processes started from Python: by `manage.py up`, by the benchmark and by
the tests that need a real worker. One place knows how to start, point and stop them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from django.conf import settings
from django.db import connection


def celery_command(kind: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "snakepit", kind, *extra]


def database_url() -> str:
    """The URL of the database this process is using now (a test database included)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def private_broker(folder: Path) -> Iterator[dict[str, str]]:
    """Environment for worker processes that share this process's current database and broker.

    On the filesystem broker, the queue moves to `folder` for this process too, so that a running
    service's worker never takes these tasks; Redis is used as configured. Redelivery is quickened
    (a 3 s visibility timeout) for processes that are killed on purpose."""
    from snakepit.celery import app

    env = {"DATABASE_URL": database_url(), "CELERY_VISIBILITY_TIMEOUT": "3", "CELERY_UNACKED_RESTORE_INTERVAL": "1"}
    if not settings.CELERY_BROKER_URL.startswith("filesystem://"):
        yield env
        return
    original = app.conf.broker_transport_options
    folders = {name: folder / name for name in ("queue", "processed", "control")}
    for path in folders.values():
        path.mkdir(parents=True, exist_ok=True)
    drop_broker_connections(app)
    app.conf.broker_transport_options = {
        **original,
        "data_folder_in": str(folders["queue"]),
        "data_folder_out": str(folders["queue"]),
        "processed_folder": str(folders["processed"]),
        "control_folder": str(folders["control"]),
    }
    try:
        yield {**env, "SNAKEPIT_BROKER_DIR": str(folder)}
    finally:
        drop_broker_connections(app)
        app.conf.broker_transport_options = original


def drop_broker_connections(app) -> None:
    """Forget pooled broker connections and producers, so the next send uses the current options."""
    from kombu import pools

    app.close()
    app.amqp._producer_pool = None
    pools.reset()


@contextmanager
def celery_process(kind: str, env: dict[str, str], log: Path, *extra: str) -> Iterator[subprocess.Popen]:
    """A `celery worker` (one process, one task at a time) or `celery beat`, stopped on exit."""
    if kind == "worker":
        extra = ("--pool=solo", "--without-gossip", "--without-mingle", "--without-heartbeat", *extra)
    else:
        extra = ("--schedule", str(log.with_suffix(".schedule")), "--max-interval=1", *extra)
    with open(log, "ab") as out:
        process = subprocess.Popen(
            celery_command(kind, "--loglevel=INFO", *extra), cwd=settings.BASE_DIR, env={**os.environ, **env},
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        yield process
    finally:
        stop(process, signal.SIGTERM)


def worker_ready(log: Path, process: subprocess.Popen, *, timeout: float = 60) -> None:
    """Wait until a worker started by `celery_process` says it is ready to take tasks ("celery@host
    ready." in its log), so that a measurement does not time its start-up."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the worker exited with {process.returncode}; see {log}")
        if log.exists() and " ready." in log.read_text(errors="replace"):
            return
        time.sleep(0.05)
    raise RuntimeError(f"the worker was not ready after {timeout} s; see {log}")


def stop(process: subprocess.Popen, how: int = signal.SIGKILL) -> None:
    """Signal the process and everything it started; SIGKILL after 20 s if it does not go."""
    if process.poll() is None:
        os.killpg(process.pid, how)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
