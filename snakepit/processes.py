"""Celery worker and beat processes started from Python: by `manage.py up`, by the benchmark and by
the tests that need a real worker. One place knows how to start, point and stop them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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

    env = {
        "DATABASE_URL": database_url(),
        "CELERY_VISIBILITY_TIMEOUT": "3",
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
    }
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

    # What app.close() does, but for one thing: close() also takes the app off Celery's list of
    # active apps, and a shared task first imported after that (ratings.tasks, imported by its
    # receiver when a ladder match ends) is then never added to it: NotRegistered, and the run
    # silently not queued.
    if app._pool is not None:
        app._pool.force_close_all()
    app._pool = None
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
            celery_command(kind, "--loglevel=INFO", *extra),
            cwd=settings.BASE_DIR,
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
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


# --- the web server -----------------------------------------------------------------------------
# uvicorn, one event loop per web process, serving snakepit/asgi.py: Django behind the limits of
# snakepit/serving.py (bodies read in the loop with a timeout, at most SNAKEPIT_WEB_THREADS requests
# inside Django at once, forwarded headers believed from the trusted proxy alone). Chosen over
# waitress, granian and daphne by measurement (deploy/README.md, "Serving"): it holds thousands of
# idle connections, each a socket and no thread, while it answers the others, and event streams
# (api/streams.py) wait in the loop. deploy/Procfile spells the same options out; change the two
# together (deploy/README.md documents the variables).
WEB_DEFAULTS = {
    # Seconds a kept-alive connection may wait for its next request, and a body for its next piece.
    "SNAKEPIT_WEB_CHANNEL_TIMEOUT": "30",
    # Open connections and requests past which new requests are answered 503 at once. Each idle one
    # costs a socket and a few kilobytes; the process's file limit (ulimit -n) must be above it.
    "SNAKEPIT_WEB_CONNECTION_LIMIT": "10000",
    # A body declared past this is refused (a plain 413) before any of it is read. Well above the
    # API's own cap (SNAKEPIT_MAX_BODY_BYTES), so that a body merely too big gets the API's JSON 413.
    "SNAKEPIT_WEB_MAX_BODY_BYTES": str(8 * 1024 * 1024),
    # Seconds a stopping web process gives open connections (event streams) before closing them.
    "SNAKEPIT_WEB_STOP_GRACE": "5",
}


def web_setting(name: str) -> int:
    return int(os.environ.get(name, "") or WEB_DEFAULTS[name])


def web_command(host: str, port: int, *, channel_timeout: int | None = None) -> list[str]:
    """The web server (uvicorn) for `manage.py up` and the tests, listening on host:port, with the
    SNAKEPIT_WEB_* limits; `web_environment` is what its process needs in its environment."""
    channel_timeout = channel_timeout or web_setting("SNAKEPIT_WEB_CHANNEL_TIMEOUT")
    return [
        sys.executable,
        "-m",
        "uvicorn",
        f"--host={host}",
        f"--port={port}",
        f"--timeout-keep-alive={channel_timeout}",
        f"--limit-concurrency={web_setting('SNAKEPIT_WEB_CONNECTION_LIMIT')}",
        f"--timeout-graceful-shutdown={web_setting('SNAKEPIT_WEB_STOP_GRACE')}",
        "--backlog=2048",
        # snakepit/serving.py judges the forwarded headers, so that it can delete them as well.
        "--no-proxy-headers",
        "--no-server-header",
        "--no-access-log",
        "snakepit.asgi:application",
    ]


def web_environment(
    *, trusted_proxy: str = "", threads: int | None = None, channel_timeout: int | None = None
) -> dict[str, str]:
    """What the web server's process reads in its environment (snakepit/serving.py).

    `trusted_proxy` is the address of a TLS proxy in front whose X-Forwarded-Proto and -For are
    believed; from any other peer those headers are deleted, so they cannot be forged."""
    env = {"SNAKEPIT_WEB_TRUSTED_PROXY": trusted_proxy}
    if threads:
        env["SNAKEPIT_WEB_THREADS"] = str(threads)
    if channel_timeout:
        env["SNAKEPIT_WEB_CHANNEL_TIMEOUT"] = str(channel_timeout)
    return env


def web_ready(host: str, port: int, process: subprocess.Popen, *, timeout: float = 60) -> None:
    """Wait until the web server started as `process` accepts connections on host:port."""
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the web server exited with {process.returncode}")
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the web server did not listen on {host}:{port} within {timeout} s")


@contextmanager
def web_process(
    env: dict[str, str], log: Path, *, host: str = "127.0.0.1", port: int, **options
) -> Iterator[subprocess.Popen]:
    """The web server (`web_command`'s, with `web_environment`'s keyword `options`) in its own
    process group, ready to answer on host:port, stopped on exit."""
    with open(log, "ab") as out:
        process = subprocess.Popen(
            web_command(host, port, channel_timeout=options.get("channel_timeout")),
            cwd=settings.BASE_DIR,
            env={**os.environ, **web_environment(**options), **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        try:
            web_ready(host, port, process)
        except RuntimeError as error:
            raise RuntimeError(f"{error}; see {log}") from None
        yield process
    finally:
        stop(process, signal.SIGTERM)


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now (the kernel's pick), for a process about to be started."""
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


# --- the local balancer -------------------------------------------------------------------------
# `manage.py up --web N` puts N web processes behind one port. A connection is handed whole to the
# next web process in turn (HTTP keep-alive stays on one process); a web process that refuses a
# connection is left out for DOWN_SECONDS and the next one is tried, so a dead one costs its clients
# only the requests it had in flight. On a server the reverse proxy (deploy/) does this instead.
BALANCER_DOWN_SECONDS = 2.0
BALANCER_CONNECT_TIMEOUT = 5.0
NO_BACKEND_ANSWER = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
    b"Retry-After: 1\r\nContent-Length: 76\r\n\r\n"
    b'{"code": "service/unavailable", "detail": "no web process is answering now"}'
)
assert NO_BACKEND_ANSWER.endswith(b"}") and len(NO_BACKEND_ANSWER.split(b"\r\n\r\n", 1)[1]) == 76


class Balancer:
    """A TCP balancer on host:port over web processes at `backends` ((host, port) pairs), run by an
    asyncio loop in a thread of the calling process. `backends` may be replaced while it runs."""

    def __init__(self, host: str, port: int, backends: list[tuple[str, int]]) -> None:
        import threading

        self.host, self.port = host, port
        self.backends = list(backends)
        self._turn = 0
        self._down_until: dict[tuple[str, int], float] = {}
        self._loop = None
        self._server = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="balancer", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._ready.wait(timeout=30)
        if self._error is not None:
            raise RuntimeError(f"the balancer could not listen on {self.host}:{self.port}: {self._error}")

    def stop(self) -> None:
        if self._loop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)

    def _run(self) -> None:
        import asyncio

        self._loop = asyncio.new_event_loop()
        try:
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._handle, self.host, self.port, backlog=1024, reuse_address=True)
            )
        except OSError as error:
            self._error = error
            self._ready.set()
            return
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._server.close()
            self._loop.close()

    def _candidates(self) -> list[tuple[str, int]]:
        """Every backend once, starting with the next in turn; those recently refusing go last."""
        backends = list(self.backends)
        if not backends:
            return []
        self._turn = (self._turn + 1) % len(backends)
        ordered = backends[self._turn :] + backends[: self._turn]
        now = time.monotonic()
        return sorted(ordered, key=lambda backend: self._down_until.get(backend, 0.0) > now)

    async def _handle(self, client_reader, client_writer) -> None:
        import asyncio

        upstream = None
        for backend in self._candidates():
            try:
                upstream = await asyncio.wait_for(asyncio.open_connection(*backend), BALANCER_CONNECT_TIMEOUT)
                break
            except (TimeoutError, OSError):
                self._down_until[backend] = time.monotonic() + BALANCER_DOWN_SECONDS
        if upstream is None:
            client_writer.write(NO_BACKEND_ANSWER)
            await self._close(client_writer)
            return
        upstream_reader, upstream_writer = upstream
        await asyncio.gather(
            self._pipe(client_reader, upstream_writer),
            self._pipe(upstream_reader, client_writer),
        )

    @staticmethod
    async def _pipe(reader, writer) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (OSError, RuntimeError):
            pass
        finally:
            # One side ended: HTTP has nothing more to say in the other direction either.
            await Balancer._close(writer)

    @staticmethod
    async def _close(writer) -> None:
        try:
            writer.close()
            await writer.wait_closed()
        except (OSError, RuntimeError):
            pass
