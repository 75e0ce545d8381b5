"""The web server as it runs: the real process (`snakepit.processes.web_process`, the command
`manage.py up` starts, and deploy/Procfile's web line) on a free loopback port, against the test
database. Slow clients cannot starve the others, silent ones are dropped, and a burst of requests
holds no more database connections than the server has threads (that one on PostgreSQL: it runs
under CI=true and skips on SQLite)."""

from __future__ import annotations

import http.client
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import pytest
from django.conf import settings
from django.db import connection

from snakepit.processes import database_url, stop, web_command, web_process, web_ready
from tests.support import require_postgresql

# A list that reads the database (a count and a page), so every answer takes a connection.
ORDINARY = "/api/matches/?limit=1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(
    port: int, path: str = ORDINARY, connection_: http.client.HTTPConnection | None = None, headers=None
) -> int:
    client = connection_ or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    client.request("GET", path, headers=headers or {})
    response = client.getresponse()
    response.read()
    if connection_ is None:
        client.close()
    return response.status


@pytest.fixture
def serve(transactional_db, tmp_path):
    """Start the web server on a free loopback port, on this test's database; returns the port."""
    with ExitStack() as stack:

        def start(env: dict[str, str] | None = None, **options) -> int:
            port = free_port()
            environment = {"DATABASE_URL": database_url(), **(env or {})}
            stack.enter_context(web_process(environment, tmp_path / f"web-{port}.log", port=port, **options))
            return port

        yield start


def test_twenty_clients_sending_a_byte_a_second_do_not_hold_up_an_ordinary_request(serve):
    # Fewer threads than slow clients: a server that gave each connection a thread would have none left.
    port = serve(threads=4)
    assert get(port) == 200  # the first request imports the URLconf: not what is measured
    slow = []
    try:
        for _ in range(20):
            client = socket.create_connection(("127.0.0.1", port), timeout=10)
            client.sendall(
                b"POST /api/matches/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n"
            )
            slow.append(client)
        took = []
        for _ in range(4):
            second = time.monotonic()
            for client in slow:
                client.sendall(b" ")
            started = time.monotonic()
            assert get(port) == 200
            took.append(time.monotonic() - started)
            time.sleep(max(0.0, 1 - (time.monotonic() - second)))
        assert max(took) < 1.0, took
        for client in slow:  # each still connected, its request still being read: no answer, no close
            client.setblocking(False)
            with pytest.raises(BlockingIOError):
                client.recv(1)
    finally:
        for client in slow:
            client.close()


def test_a_thousand_idle_connections_do_not_hold_up_an_ordinary_request(serve):
    # More than waitress's 500-connection limit, which stopped it answering anyone: here each idle
    # connection is a socket in the event loop.
    port = serve(threads=4)
    assert get(port) == 200
    idle = []
    try:
        for _ in range(1000):
            client = socket.create_connection(("127.0.0.1", port), timeout=10)
            client.sendall(b"GET /api/games/ HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
            idle.append(client)
        took = []
        for _ in range(5):
            started = time.monotonic()
            assert get(port) == 200
            took.append(time.monotonic() - started)
        assert max(took) < 1.0, took
    finally:
        for client in idle:
            client.close()


def test_open_event_streams_take_none_of_the_request_slots(serve, django_user_model):
    from matches.services import SeatSpec, match_create

    person = django_user_model.objects.create_user("streamer", password="streamer-password")
    match = match_create(game_key="rat-snake", seats=[SeatSpec(user=person), SeatSpec(bot="heuristic")])
    port = serve(threads=2)
    streams = []
    try:
        for _ in range(10):  # five times the slots inside Django, each stream open and waiting
            client = socket.create_connection(("127.0.0.1", port), timeout=10)
            client.sendall(
                f"GET /api/matches/{match.pk}/stream/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
            )
            streams.append(client)
        for client in streams:
            assert b"text/event-stream" in client.recv(4096)
        started = time.monotonic()
        assert get(port) == 200
        assert time.monotonic() - started < 1.0
    finally:
        for client in streams:
            client.close()


def test_an_open_event_stream_holds_no_thread_of_the_web_process(
    transactional_db, tmp_path, django_user_model
):
    """Every middleware is async-capable (snakepit/errors.py, snakepit/static_files.py), so Django
    serves a stream in the event loop; one sync-only middleware would run each open stream's
    request in a thread of its own for as long as it stays open."""
    from matches.services import SeatSpec, match_create

    person = django_user_model.objects.create_user("streamer", password="streamer-password")
    match = match_create(game_key="rat-snake", seats=[SeatSpec(user=person), SeatSpec(bot="heuristic")])
    port, opened = free_port(), 40
    environment = {"DATABASE_URL": database_url()}
    with web_process(environment, tmp_path / "web.log", port=port) as process:

        def threads() -> int:
            status = open(f"/proc/{process.pid}/status").read()
            return int(re.search(r"^Threads:\s+(\d+)", status, re.MULTILINE).group(1))

        assert get(port) == 200  # the server's own pools started
        before = threads()
        streams = []
        try:
            for _ in range(opened):
                client = socket.create_connection(("127.0.0.1", port), timeout=10)
                client.sendall(
                    f"GET /api/matches/{match.pk}/stream/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
                )
                streams.append(client)
            for client in streams:
                received = b""
                while b"event: view" not in received:  # each has read the log and waits
                    received += client.recv(65536)
            grown = threads() - before
        finally:
            for client in streams:
                client.close()
    # The reads' own pool (at most SNAKEPIT_WEB_THREADS at once) may have started a few threads.
    assert grown < opened // 4, grown


def test_a_silent_client_is_disconnected_and_a_huge_body_refused_unread(serve):
    port = serve(channel_timeout=2)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
        client.sendall(b"POST /api/matches/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n")
        try:
            received = client.recv(1024)
        except ConnectionResetError:
            received = b""
        # A 408, then closed by the server (a hang would end in socket.timeout).
        while chunk := client.recv(1024):
            received += chunk
        assert received.startswith(b"HTTP/1.1 408 "), received
    with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
        # 100 MB announced, none sent: the answer comes at once, without waiting for the body.
        client.sendall(b"POST /api/matches/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000000\r\n\r\n")
        assert client.recv(1024).startswith(b"HTTP/1.1 413 ")
    assert get(port) == 200


@pytest.mark.parametrize("pool_size", [0, 2], ids=["persistent", "pool"])
def test_a_burst_of_requests_holds_no_more_database_connections_than_the_server_has_threads(serve, pool_size):
    """Persistent connections: one per thread at most. psycopg's pool (SNAKEPIT_DB_POOL_SIZE), smaller
    than the thread pool: the pool's size at most, the other threads waiting their turn."""
    require_postgresql("counts PostgreSQL connections in pg_stat_activity (runs under CI=true)")
    name = f"snakepit-test-web-{os.getpid()}-{pool_size}"
    threads, clients, each = 4, 40, 50
    port = serve(
        threads=threads, env={"SNAKEPIT_DB_APPLICATION_NAME": name, "SNAKEPIT_DB_POOL_SIZE": str(pool_size)}
    )
    bound = pool_size or threads

    def server_connections() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [name])
            return cursor.fetchone()[0]

    def client(index: int) -> Counter:
        # Half the clients keep their connection alive, half open one per request. The cheapest
        # request that takes a database connection: a token that is looked up and not found.
        keep = http.client.HTTPConnection("127.0.0.1", port, timeout=60) if index % 2 else None
        statuses = Counter(
            get(port, "/api/games/", keep, {"Authorization": "Token unknown"}) for _ in range(each)
        )
        if keep is not None:
            keep.close()
        return statuses

    peak = 0
    with ThreadPoolExecutor(clients) as pool:
        futures = [pool.submit(client, index) for index in range(clients)]
        while not all(future.done() for future in futures):
            peak = max(peak, server_connections())
            time.sleep(0.02)
    statuses = sum((future.result() for future in futures), Counter())
    assert statuses == Counter({401: clients * each})
    peak = max(peak, server_connections())
    assert 1 <= peak <= bound, f"{peak} connections for {threads} threads and a pool of {pool_size}"


def procfile_command(kind: str) -> str:
    text = (settings.BASE_DIR / "deploy" / "Procfile").read_text()
    match = re.search(rf"^{kind}:\s*(.+)$", text, re.MULTILINE)
    assert match, f"no {kind} process in deploy/Procfile"
    return match.group(1)


def test_the_procfile_web_process_serves_behind_a_tls_proxy_on_this_machine(transactional_db, tmp_path):
    command = procfile_command("web")
    assert "uvicorn" in shlex.split(command)
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "SNAKEPIT_WEB_LISTEN": f"127.0.0.1:{port}",
        "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ.get('PATH', '')}",
        "DJANGO_BEHIND_TLS": "1",
    }
    with open(tmp_path / "procfile-web.log", "ab") as log:
        process = subprocess.Popen(
            ["sh", "-c", command],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        web_ready("127.0.0.1", port, process)
        # The proxy (here: this test, on 127.0.0.1, the default trusted address) says the client
        # spoke HTTPS; a request without it is plain HTTP, redirected.
        assert get(port, headers={"X-Forwarded-Proto": "https"}) == 200
        assert get(port) == 301
    finally:
        stop(process, signal.SIGTERM)


def test_forwarded_headers_from_an_untrusted_peer_are_dropped(serve):
    # `manage.py up` trusts no proxy: whoever connects cannot claim HTTPS (nor another address).
    port = serve(env={"DJANGO_BEHIND_TLS": "1"})
    assert get(port, headers={"X-Forwarded-Proto": "https"}) == 301


def test_up_and_the_procfile_listen_on_this_machine_only_unless_told_otherwise():
    from snakepit.management.commands.up import Command

    assert Command().create_parser("manage.py", "up").parse_args([]).host == "127.0.0.1"
    assert "listen=${SNAKEPIT_WEB_LISTEN:-127.0.0.1:8000};" in shlex.split(procfile_command("web"))


def test_the_procfile_web_line_passes_the_options_up_passes():
    def options(command: list[str]) -> set[str]:
        return {word.split("=", 1)[0] for word in command if word.startswith("--")}

    procfile = shlex.split(procfile_command("web"))
    assert options(procfile) == options(web_command("127.0.0.1", 8000))
    assert procfile[-1] == web_command("127.0.0.1", 8000)[-1] == "snakepit.asgi:application"
