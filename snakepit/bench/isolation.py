"""The bench's own database and broker, so that it never reads or writes the configured ones.

- `throwaway_database()`: a database of the configured kind (PostgreSQL or SQLite), created for the
  run and dropped after it.
- `bench_broker(folder)`: with Redis configured, the same server's database SNAKEPIT_BENCH_REDIS_DB
  (15 unless set), emptied before and after; otherwise a filesystem broker in `folder`. This process
  publishes there for as long as the context lasts, and the environment it yields points worker
  processes (`snakepit.processes.celery_process`) at it and at the current (throwaway) database.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.db import connection

from snakepit.processes import database_url, drop_broker_connections


@contextmanager
def throwaway_database() -> Iterator[None]:
    """A fresh, migrated database named for this process (never the test suite's), dropped after."""
    old_name = connection.settings_dict["NAME"]
    test_settings = connection.settings_dict.setdefault("TEST", {})
    old_test_name = test_settings.get("NAME")
    if connection.vendor == "sqlite":
        test_settings["NAME"] = str(settings.VAR_DIR / f"bench-{os.getpid()}.sqlite3")
    else:
        test_settings["NAME"] = f"snakepit_bench_{os.getpid()}"
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        test_settings["NAME"] = old_test_name


def bench_redis_url(redis_url: str) -> str:
    parts = urlsplit(redis_url)
    return urlunsplit(parts._replace(path=f"/{int(os.environ.get('SNAKEPIT_BENCH_REDIS_DB', '15'))}"))


@contextmanager
def bench_broker(folder: Path) -> Iterator[dict[str, str]]:
    from snakepit.celery import app

    env = {"DATABASE_URL": database_url()}
    original = {
        "broker_url": app.conf.broker_url,
        "broker_transport_options": app.conf.broker_transport_options,
    }
    if settings.CELERY_BROKER_URL.startswith("redis"):
        import redis

        url = bench_redis_url(settings.CELERY_BROKER_URL)
        if url.rstrip("/") == settings.CELERY_BROKER_URL.rstrip("/"):
            raise RuntimeError(f"the bench's broker {url} is the configured one: set SNAKEPIT_BENCH_REDIS_DB")
        server = redis.Redis.from_url(url)
        server.flushdb()
        env["CELERY_BROKER_URL"] = url
        app.conf.broker_url = url
        cleanup = server.flushdb
    else:
        folders = {name: folder / name for name in ("queue", "processed", "control")}
        for path in folders.values():
            path.mkdir(parents=True, exist_ok=True)
        env.update(CELERY_BROKER_URL="filesystem://", SNAKEPIT_BROKER_DIR=str(folder))
        app.conf.broker_url = "filesystem://"
        app.conf.broker_transport_options = {
            **original["broker_transport_options"],
            "data_folder_in": str(folders["queue"]),
            "data_folder_out": str(folders["queue"]),
            "processed_folder": str(folders["processed"]),
            "control_folder": str(folders["control"]),
        }
        cleanup = None
    drop_broker_connections(app)
    try:
        yield env
    finally:
        drop_broker_connections(app)
        for name, value in original.items():
            setattr(app.conf, name, value)
        if cleanup is not None:
            cleanup()
