"""`manage.py up --web N --workers M`: N web processes behind one port, M workers and one beat, each
started again when it dies, all stopped on Ctrl-C or SIGTERM; refused on the embedded default. The
balancer alone is tested on two plain HTTP servers; the whole command on PostgreSQL and Redis."""

from __future__ import annotations

import http.client
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.conf import settings

from snakepit.processes import Balancer, database_url, free_port, stop
from tests.support import require_postgresql
from tests.workers import wait_until

ROOT = Path(__file__).resolve().parents[1]


def status_and_body(port: int, path: str = "/") -> tuple[int, bytes]:
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        client.request("GET", path)
        response = client.getresponse()
        return response.status, response.read()
    finally:
        client.close()


class Named(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = self.server.name.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def named_server(name: str) -> http.server.HTTPServer:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Named)
    server.name = name
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_the_balancer_shares_connections_and_routes_around_a_backend_that_is_gone():
    first, second = named_server("first"), named_server("second")
    balancer = Balancer(
        "127.0.0.1", free_port(), [("127.0.0.1", s.server_address[1]) for s in (first, second)]
    )
    balancer.start()
    try:
        answers = [status_and_body(balancer.port) for _ in range(10)]
        assert {status for status, _ in answers} == {200}
        assert {body for _, body in answers} == {b"first", b"second"}  # both take connections
        first.shutdown()
        first.server_close()
        assert [status_and_body(balancer.port) for _ in range(10)] == [(200, b"second")] * 10
        second.shutdown()
        second.server_close()
        status, body = status_and_body(balancer.port)
        assert status == 503
        assert json.loads(body)["code"] == "service/unavailable"
    finally:
        balancer.stop()


def clean_environment(tmp_path: Path, **env: str) -> dict[str, str]:
    """This environment with nothing that chooses a database, broker or CI, plus `env`."""
    chosen = ("CI", "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "SNAKEPIT_VAR_DIR")
    return {
        **{k: v for k, v in os.environ.items() if k not in chosen},
        "SNAKEPIT_VAR_DIR": str(tmp_path),
        **env,
    }


@pytest.mark.parametrize("flags", [["--web", "2"], ["--workers", "3"]])
def test_many_processes_are_refused_on_the_embedded_default_with_what_to_configure(tmp_path, flags):
    result = subprocess.run(
        [sys.executable, "manage.py", "up", "--no-demo", "--port", str(free_port()), *flags],
        cwd=ROOT,
        env=clean_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0
    assert "DATABASE_URL=postgres://" in result.stderr and "REDIS_URL=redis://" in result.stderr
    assert "deploy/README.md" in result.stderr
    assert not (tmp_path / "snakepit.sqlite3").exists(), "refused before migrating anything"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def empty_queue():
    """`up`'s beat queues ladder rounds that may outlive the test; later tests' workers share the
    broker, so none is left for them."""
    require_postgresql("several web processes and workers share PostgreSQL and Redis")
    from snakepit.celery import app

    yield
    app.control.purge()


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_two_web_processes_and_two_workers_survive_kills_and_stop_together(
    transactional_db, tmp_path, stop_signal, empty_queue
):
    port = free_port()
    # The broker this test process uses, whether the environment names it or CI=true chose it.
    env = clean_environment(
        tmp_path,
        DATABASE_URL=database_url(),
        REDIS_URL=settings.REDIS_URL,
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
    )
    with open(tmp_path / "up.out", "wb") as log:
        up = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "up",
                "--no-demo",
                "--port",
                str(port),
                "--web",
                "2",
                "--workers",
                "2",
                "--concurrency",
                "1",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    status_file = tmp_path / "up.json"
    try:

        def ready() -> bool:
            try:
                return status_and_body(port, "/readyz")[0] == 200
            except OSError:
                return False

        wait_until(ready, timeout=120, what="up's port to answer /readyz", log=tmp_path / "up.out")
        started = json.loads(status_file.read_text())["processes"]
        assert sorted(started) == ["beat", "web-1", "web-2", "worker-1", "worker-2"]
        assert started["web-1"] != started["web-2"]

        os.killpg(started["web-1"], signal.SIGKILL)
        # Requests in flight on it when it died are lost (their connections close unanswered); once it
        # is gone, the balancer routes around it until it is back.
        wait_until(lambda: not alive(started["web-1"]), timeout=10, what="the killed web process to be gone")
        assert [status_and_body(port, "/readyz")[0] for _ in range(8)] == [200] * 8
        os.killpg(started["worker-2"], signal.SIGKILL)  # the worker and its pool, as a machine dies

        def restarted() -> bool:
            now = json.loads(status_file.read_text())["processes"]
            return now["web-1"] != started["web-1"] and now["worker-2"] != started["worker-2"]

        wait_until(
            restarted, timeout=30, what="the killed processes to be started again", log=tmp_path / "up.out"
        )
        running = json.loads(status_file.read_text())["processes"]
        assert all(alive(pid) for pid in running.values())
        assert "web-1 stopped with exit code -9; starting it again." in (tmp_path / "up.out").read_text()

        os.kill(up.pid, stop_signal)  # Ctrl-C at a terminal sends SIGINT; a supervisor SIGTERM
        assert up.wait(timeout=60) == 0
        assert not any(alive(pid) for pid in running.values()), "every process stopped with up"
        assert not status_file.exists()
    finally:
        stop(up, signal.SIGKILL)
        if status_file.exists():
            for pid in json.loads(status_file.read_text())["processes"].values():
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
