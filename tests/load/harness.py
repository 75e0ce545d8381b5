"""The load test with faults: `manage.py up --web 2 --workers 2` on PostgreSQL and a Redis of the
run's own, Locust's players (tests/load/locustfile.py) against its port while the bot ladders play,
and four faults: slow connections held open for the whole load (requests trickled a byte at a time,
headers never finished, match streams read slowly), a worker killed midway (and started again by
`up`), a web process killed (the balancer routes around it; `up` starts it again) and Redis
restarted empty; then a full check of what was stored and a report of the figures.

    python -m tests.load.harness --users 24 --seconds 180            # on DATABASE_URL (PostgreSQL)
    python -m tests.load.harness --users 24 --seconds 180 --no-faults   # a capacity run

Redis is a `redis-server` the harness starts on a free loopback port with nothing saved to disk, so
that restarting it loses what a crash loses (queued tasks, cached counts, subscriptions) and never
touches the shared server on 6379; REDIS_URL is not read.

The check, after the ladders are stopped and their last matches played and rated:
- every match's stored result agrees with a replay of its log (`replay_matches`), and every finished
  match's chance verifies against its seed (`verify_matches`); every tournament's projections agree
  with its log (`rebuild_tournaments --check`);
- every action the service acknowledged (Locust recorded match, seq and idempotency key) is in its
  match's log exactly once, at that seq;
- every finished ladder match is rated exactly once, and each entry's rated games are its history;
- no answer, Locust's or a slow connection's, was a 5xx (the smoke test and `main` fail on one).

tests/load/test_load_smoke.py runs it small in CI; docs/operations.md has the figures of a full run."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCUSTFILE = Path(__file__).with_name("locustfile.py")
# The run raises the per-user rates as the API tests do: a few accounts play the part of many people.
RUN_ENVIRONMENT = {
    "SNAKEPIT_RATE_CREATE": "1000000/hour",
    "SNAKEPIT_RATE_ACTIONS": "1000000/min",
    "SNAKEPIT_QUOTA_BOT_MATCHES": "1000",
    # A killed worker's task goes to another worker after 20 s rather than Redis's default of 5 min.
    "CELERY_VISIBILITY_TIMEOUT": "20",
    "CELERY_UNACKED_RESTORE_INTERVAL": "2",
    # A bot match whose task Redis's restart lost is queued again by beat's minute sweep once it is
    # this overdue, rather than the default 2 min, so that it finishes within the drain.
    "SNAKEPIT_STALLED_AFTER_SECONDS": "15",
}
# How long Redis stays down when the run restarts it.
REDIS_DOWN_SECONDS = 3.0


def say(message: str) -> None:
    """Progress on stderr: a full run takes minutes."""
    print(f"{time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


@dataclass
class LoadRun:
    users: int
    seconds: int
    tournaments: int
    folder: Path
    kill_faults: bool = True
    slow_connections: int = 0
    redis_restart: bool = True
    load_before: float = 0.0
    load_after: float = 0.0
    events_before: int = 0
    events_after: int = 0
    faults: list[str] = field(default_factory=list)
    stats: list[dict] = field(default_factory=list)
    statuses: dict[str, Counter] = field(default_factory=dict)
    slow: dict = field(default_factory=dict)
    acknowledged: list[dict] = field(default_factory=list)
    check: dict = field(default_factory=dict)


# --- talking to the running service -------------------------------------------------------------


def api(port: int, method: str, path: str, token: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        method=method,
        data=json.dumps(body or {}).encode() if method == "POST" else None,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def api_ok(port: int, method: str, path: str, token: str, body: dict | None = None) -> dict:
    status, answer = api(port, method, path, token, body)
    if status not in (200, 201):
        raise AssertionError(f"{method} {path}: {status} {answer}")
    return answer


def wait_ready(port: int, up: subprocess.Popen, log: Path, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if up.poll() is not None:
            raise AssertionError(
                f"up exited with {up.returncode}:\n{log.read_text(errors='replace')[-3000:]}"
            )
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(
        f"up did not answer /readyz within {timeout} s:\n{log.read_text(errors='replace')[-3000:]}"
    )


# --- the faults: a Redis of the run's own, and slow connections ---------------------------------


class RedisServer:
    """A `redis-server` on a free loopback port that saves nothing, so that `restart` empties it as a
    crash of a Redis without persistence would."""

    def __init__(self, folder: Path) -> None:
        from snakepit.processes import free_port

        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        executable = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.command = [
            executable,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--dir",
            str(folder),
        ]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        with open(self.folder / "redis.log", "ab") as log:
            self.process = subprocess.Popen(
                self.command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"redis-server exited with {self.process.returncode}; see redis.log")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as probe:
                    probe.sendall(b"PING\r\n")
                    if probe.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"redis-server did not answer on port {self.port} within 30 s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def restart(self, down_seconds: float) -> None:
        """Stop it (every client's connection closes, every key and subscription is gone), leave it
        down for `down_seconds`, and start it again empty on the same port."""
        self.stop()
        time.sleep(down_seconds)
        self.start()


def redis_environment(url: str) -> dict[str, str]:
    """What points the service's processes at `url` for its cache, broker and match feed."""
    return {"REDIS_URL": url, "CELERY_BROKER_URL": url}


# The slow clients' requests. A trickled one is sent a byte at a time and then answered; its
# connection closes after the answer and a new one starts over.
SIGN_IN = b'{"username": "nobody", "password": "not a password"}'
TRICKLED = (
    b"GET /api/games/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    b"POST /api/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(SIGN_IN), SIGN_IN),
)
UNFINISHED = b"GET /api/games/ HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n"
SLOW_KINDS = ("trickled", "unfinished", "stream")
# Seconds between two bytes of a trickled request (uvicorn waits for headers; snakepit/serving.py
# allows a body SNAKEPIT_WEB_CHANNEL_TIMEOUT seconds between pieces), and between two small reads
# of a stream (its server fills the socket's buffers and must wait, never block the others).
TRICKLE_GAP = (0.05, 0.5)
STREAM_READ_BYTES = 256
RECONNECT_GAP = {"trickled": (0.5, 1.5), "unfinished": (0.5, 1.5), "stream": (2.0, 5.0)}
STREAM_READ_GAP = 1.0


class SlowConnections:
    """`count` connections to the service held open for as long as the load runs, as slow or stalled
    clients hold them, in an event loop on a thread of the harness: two fifths send a request's
    headers and never finish them, the others in equal parts trickle a whole request a byte at a time
    (`TRICKLED`: a read, and a sign-in whose throttle reads the cache), or hold a running match's
    event stream (`GET /api/matches/{id}/stream/`) open and read it a little at a time. A connection
    that ends (an answer, a stream's end, a killed web process) is opened again, so `count` stay
    open. Every answer's status is counted by kind (0: closed with no answer), and how many were
    open is sampled every second."""

    def __init__(self, port: int, count: int) -> None:
        self.port, self.count = port, count
        self.statuses: dict[str, Counter] = {kind: Counter() for kind in SLOW_KINDS}
        self.open = 0
        self.opened = 0
        self.held: list[int] = []
        self.match_ids: list[int] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="slow-connections", daemon=True)
        self._started = threading.Event()

    def start(self) -> None:
        self._thread.start()
        self._started.wait(timeout=30)

    def stop(self) -> dict:
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        self._thread.join(timeout=60)
        steady = sorted(self.held[len(self.held) // 4 :] or [0])
        return {
            "count": self.count,
            "opened": self.opened,
            "held_min": steady[0],
            "held_median": steady[len(steady) // 2],
            "held_max": steady[-1],
            "statuses": {kind: dict(counts) for kind, counts in self.statuses.items()},
        }

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        self._started.set()
        await self._match_ids_refresh()
        kinds = ["unfinished"] * (self.count * 2 // 5)
        rest = self.count - len(kinds)
        kinds += ["trickled"] * (rest // 2) + ["stream"] * (rest - rest // 2)
        tasks = [asyncio.create_task(self._sample()), asyncio.create_task(self._refresh())]
        for number, kind in enumerate(kinds):
            tasks.append(asyncio.create_task(self._client(kind, random.Random(number))))
            if number % 50 == 49:
                await asyncio.sleep(0.1)  # within the balancer's listen backlog
        await self._stopping.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _sample(self) -> None:
        while True:
            await asyncio.sleep(1)
            self.held.append(self.open)

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(5)
            await self._match_ids_refresh()

    async def _match_ids_refresh(self) -> None:
        self.match_ids = await asyncio.to_thread(running_match_ids) or self.match_ids

    async def _client(self, kind: str, rng: random.Random) -> None:
        while True:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                self.statuses[kind]["connect-failed"] += 1
                await asyncio.sleep(1)
                continue
            self.open += 1
            self.opened += 1
            try:
                await getattr(self, f"_{kind}")(reader, writer, rng)
            except (OSError, asyncio.IncompleteReadError):
                self.statuses[kind]["0"] += 1
            finally:
                self.open -= 1
                writer.close()
            # A stream whose match has ended is followed by another match's a few seconds later,
            # as a spectator moves on (not at once: each new stream reads its match's whole log).
            await asyncio.sleep(rng.uniform(*RECONNECT_GAP[kind]))

    async def _status(self, reader: asyncio.StreamReader, kind: str) -> int:
        line = await reader.readline()
        parts = line.split()
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        self.statuses[kind][str(status)] += 1
        return status

    async def _trickled(self, reader, writer, rng: random.Random) -> None:
        request = rng.choice(TRICKLED)
        for index in range(len(request)):
            writer.write(request[index : index + 1])
            await writer.drain()
            await asyncio.sleep(rng.uniform(*TRICKLE_GAP))
        await self._status(reader, "trickled")
        await reader.read()  # Connection: close

    async def _unfinished(self, reader, writer, rng: random.Random) -> None:
        writer.write(UNFINISHED)
        await writer.drain()
        # Whatever the server says before it gives up on the request, if it ever does.
        if await reader.read(1):
            self.statuses["unfinished"]["answered"] += 1
        else:
            self.statuses["unfinished"]["closed"] += 1

    async def _stream(self, reader, writer, rng: random.Random) -> None:
        match_id = rng.choice(self.match_ids) if self.match_ids else 1
        writer.write(
            f"GET /api/matches/{match_id}/stream/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Accept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        if await self._status(reader, "stream") != 200:
            return
        while await reader.read(STREAM_READ_BYTES):
            await asyncio.sleep(STREAM_READ_GAP)


def running_match_ids() -> list[int]:
    """The newest running matches (bots' and people's), for the slow streams to watch."""
    from django.db import connection

    from matches.models import Match

    try:
        return list(
            Match.objects.filter(status=Match.Status.RUNNING)
            .order_by("-pk")
            .values_list("pk", flat=True)[:40]
        )
    finally:
        connection.close()


# --- the plan: people, their tokens, Swiss tournaments reported at the table ---------------------


def plan_make(run: LoadRun, port: int) -> dict:
    """Accounts and tokens in the database; tournaments through the API, as an organiser makes them."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from decks.selectors import prebuilt_list
    from ratings.models import Ladder

    users = get_user_model()
    stamp = f"{os.getpid()}{int(time.time()) % 100000}"
    organiser, _ = users.objects.get_or_create(
        username=f"load-organiser-{stamp}", defaults={"is_staff": True}
    )
    organiser_token = Token.objects.get_or_create(user=organiser)[0].key
    players = []
    # One account per Locust player (the organiser is the one other user): each reports at its own tables.
    for number in range(max(2, run.users - 1)):
        user = users.objects.create_user(f"load-{stamp}-{number}", password=None)
        players.append(
            {
                "username": user.username,
                "token": Token.objects.get_or_create(user=user)[0].key,
                "tournaments": {},
            }
        )
    slugs = []
    for number in range(run.tournaments):
        made = api_ok(
            port,
            "POST",
            "/api/tournaments/",
            organiser_token,
            {
                "name": f"Load Swiss {stamp} {number}",
                "game": "rat-snake",
                "format": "swiss",
                "options": {"passes": 1},
                "result_mode": "table",
            },
        )
        slug = made["slug"]
        api_ok(port, "POST", f"/api/tournaments/{slug}/open/", organiser_token)
        for player in players:
            entry = api_ok(port, "POST", f"/api/tournaments/{slug}/register/", player["token"])
            player["tournaments"][slug] = entry["player"]
        api_ok(port, "POST", f"/api/tournaments/{slug}/start/", organiser_token)
        slugs.append(slug)
    decks = [
        {
            "format": next((key for key, legal in deck["legal_in"].items() if legal), "standard"),
            "text": deck["text"],
        }
        for deck in prebuilt_list()
    ]
    ladders = list(Ladder.objects.filter(is_active=True).values_list("slug", flat=True))
    plan = {
        "organiser": {"token": organiser_token},
        "players": players,
        "tournaments": slugs,
        "decks": decks,
        "ladders": ladders,
    }
    (run.folder / "plan.json").write_text(json.dumps(plan))
    return plan


def ladders_round_now() -> int:
    """A round of every active ladder at once, so bots are playing from the first second."""
    from ratings.models import Ladder
    from ratings.rounds import ladder_round_create

    return sum(
        len(ladder_round_create(ladder_id=pk).matches)
        for pk in Ladder.objects.filter(is_active=True).values_list("pk", flat=True)
    )


# --- the run ------------------------------------------------------------------------------------


def up_start(run: LoadRun, port: int, database_url: str, redis_url: str) -> subprocess.Popen:
    env = {
        **os.environ,
        **RUN_ENVIRONMENT,
        **redis_environment(redis_url),
        "DATABASE_URL": database_url,
        "SNAKEPIT_VAR_DIR": str(run.folder / "var"),
    }
    (run.folder / "var").mkdir(exist_ok=True)
    with open(run.folder / "up.log", "wb") as log:
        return subprocess.Popen(
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
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def up_processes(run: LoadRun) -> dict[str, int]:
    return json.loads((run.folder / "var" / "up.json").read_text())["processes"]


def kill(run: LoadRun, name: str) -> None:
    """SIGKILL a process of `up` and everything it started (a worker's pool too), as a crash would."""
    pid = up_processes(run)[name]
    os.killpg(pid, signal.SIGKILL)
    run.faults.append(f"{time.strftime('%H:%M:%S')} killed {name} (pid {pid})")
    say(f"killed {name} (pid {pid}) with SIGKILL; up starts it again")


def redis_restart(run: LoadRun, redis: RedisServer) -> None:
    redis.restart(REDIS_DOWN_SECONDS)
    run.faults.append(
        f"{time.strftime('%H:%M:%S')} restarted Redis (down {REDIS_DOWN_SECONDS:.0f} s, started empty)"
    )
    say(f"restarted Redis on port {redis.port}: down {REDIS_DOWN_SECONDS:.0f} s, every key and queue gone")


def locust_run(run: LoadRun, port: int, redis: RedisServer) -> None:
    env = {
        **os.environ,
        "SNAKEPIT_LOAD_PLAN": str(run.folder / "plan.json"),
        "SNAKEPIT_LOAD_RESULTS": str(run.folder / "results.json"),
    }
    command = [
        sys.executable,
        "-m",
        "locust",
        "-f",
        str(LOCUSTFILE),
        "--headless",
        "--only-summary",
        "--users",
        str(run.users),
        "--spawn-rate",
        str(max(1, run.users // 5)),
        "--run-time",
        f"{run.seconds}s",
        "--host",
        f"http://127.0.0.1:{port}",
        "--csv",
        str(run.folder / "locust"),
        "--stop-timeout",
        "10",
        "--exit-code-on-error",
        "0",
        "--loglevel",
        "WARNING",
    ]
    started = time.monotonic()
    with open(run.folder / "locust.log", "wb") as log:
        locust = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    say(f"Locust: {run.users} users for {run.seconds} s (log: {run.folder / 'locust.log'})")
    schedule = []
    if run.kill_faults:
        schedule += [
            (run.seconds / 3, lambda: kill(run, "worker-1")),
            (run.seconds / 2, lambda: kill(run, "web-1")),
        ]
    if run.redis_restart:
        schedule.append((run.seconds * 2 / 3, lambda: redis_restart(run, redis)))
    for at, fault in schedule:
        time.sleep(max(0.0, started + at - time.monotonic()))
        fault()
    if locust.wait(timeout=run.seconds + 120) != 0:
        raise AssertionError(
            f"locust exited with {locust.returncode}:\n{(run.folder / 'locust.log').read_text()[-3000:]}"
        )
    results = json.loads((run.folder / "results.json").read_text())
    run.acknowledged = results["acknowledged"]
    run.statuses = {name: Counter(counts) for name, counts in results["statuses"].items()}
    with open(run.folder / "locust_stats.csv") as stats:
        run.stats = list(csv.DictReader(stats))


def ladders_stop_and_drain(timeout: float) -> None:
    """No new ladder rounds; wait until every ladder match has finished and been rated."""
    from matches.models import Match
    from ratings.models import Ladder, LadderMatch, RatedMatch
    from ratings.services import ladder_schedule_sync

    for ladder in Ladder.objects.filter(is_active=True):
        ladder.is_active = False
        ladder.save(update_fields=["is_active"])
        ladder_schedule_sync(ladder)
    deadline = time.monotonic() + timeout
    said = 0.0
    while time.monotonic() < deadline:
        running = LadderMatch.objects.filter(match__status=Match.Status.RUNNING).count()
        finished = LadderMatch.objects.filter(match__status=Match.Status.FINISHED).values_list(
            "match_id", flat=True
        )
        unrated = set(finished) - set(RatedMatch.objects.values_list("match_id", flat=True))
        if not running and not unrated:
            return
        if time.monotonic() - said > 10:
            say(
                f"draining the ladders: {running} match(es) running, "
                f"{len(unrated)} finished and not yet rated"
            )
            said = time.monotonic()
        time.sleep(1)
    raise AssertionError(
        f"after {timeout} s, {running} ladder match(es) still running and {len(unrated)} unrated"
    )


def up_stop(up: subprocess.Popen) -> None:
    if up.poll() is None:
        os.kill(up.pid, signal.SIGINT)
        try:
            up.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(up.pid, signal.SIGKILL)
            up.wait()


# --- the check ----------------------------------------------------------------------------------


def after_run_check(run: LoadRun) -> dict:
    """Everything the issue asks of the stored data after the run; an AssertionError says what is wrong."""
    from django.core.management import call_command
    from django.db.models import Count, F, Q

    from matches.models import Match, MatchEvent
    from ratings.models import LadderEntry, LadderMatch, RatedMatch

    call_command("replay_matches", verbosity=0)
    call_command("verify_matches", verbosity=0)
    call_command("rebuild_tournaments", verbosity=0)

    keys = [ack["key"] for ack in run.acknowledged]
    assert len(keys) == len(set(keys)), "an idempotency key was acknowledged twice"
    # The store keeps a key as "<user id>:<key>": keys are each user's own.
    stored: dict[tuple[int, str], list[int]] = {}
    rows = MatchEvent.objects.filter(
        match_id__in={ack["match"] for ack in run.acknowledged}, idempotency_key__isnull=False
    ).values_list("match_id", "idempotency_key", "seq")
    for match_id, key, seq in rows:
        stored.setdefault((match_id, key.split(":", 1)[1]), []).append(seq)
    missing = [ack for ack in run.acknowledged if (ack["match"], ack["key"]) not in stored]
    doubled = [ack for ack in run.acknowledged if len(stored.get((ack["match"], ack["key"]), [0])) != 1]
    moved = [
        ack
        for ack in run.acknowledged
        if stored.get((ack["match"], ack["key"]), [ack["seq"]])[0] != ack["seq"]
    ]
    assert not missing, f"{len(missing)} acknowledged action(s) missing from their logs: {missing[:5]}"
    assert not doubled, f"{len(doubled)} acknowledged action(s) stored more than once: {doubled[:5]}"
    assert not moved, f"{len(moved)} acknowledged action(s) at another seq than acknowledged: {moved[:5]}"

    finished = set(
        LadderMatch.objects.filter(match__status=Match.Status.FINISHED).values_list("match_id", flat=True)
    )
    rated = Counter(RatedMatch.objects.values_list("match_id", flat=True))
    assert set(rated) == finished, (
        f"finished but unrated: {sorted(finished - set(rated))[:10]}; "
        f"rated but not finished: {sorted(set(rated) - finished)[:10]}"
    )
    assert max(rated.values(), default=1) == 1, "a match rated twice"
    # Each entry's rated games this season are exactly its rating changes of this season: none applied twice.
    entries = LadderEntry.objects.annotate(
        changes=Count("history", filter=Q(history__rated_match__season=F("ladder__season")))
    )
    wrong = [(entry.pk, entry.games, entry.changes) for entry in entries if entry.games != entry.changes]
    assert not wrong, (
        f"entries whose rated games differ from their history (entry, games, changes): {wrong[:5]}"
    )
    return {
        "matches": Match.objects.count(),
        "finished_matches": Match.objects.filter(status=Match.Status.FINISHED).count(),
        "acknowledged_actions": len(keys),
        "replayed_acknowledgements": sum(1 for ack in run.acknowledged if ack["replayed"]),
        "ladder_matches_rated": len(finished),
    }


def events_count() -> int:
    from matches.models import MatchEvent

    return MatchEvent.objects.count()


@contextlib.contextmanager
def this_process_on(redis_url: str):
    """This process's cache and Celery app on the run's Redis too: the harness queues the first
    ladder rounds' matches, which `up`'s workers must find there."""
    from django.conf import settings
    from django.test import override_settings

    from snakepit.celery import app
    from snakepit.processes import drop_broker_connections

    caches = {
        name: {**cache, "LOCATION": redis_url} if "redis" in cache["BACKEND"].lower() else cache
        for name, cache in settings.CACHES.items()
    }
    original = app.conf.broker_url
    with override_settings(REDIS_URL=redis_url, CELERY_BROKER_URL=redis_url, CACHES=caches):
        app.conf.broker_url = redis_url
        drop_broker_connections(app)
        try:
            yield
        finally:
            drop_broker_connections(app)
            app.conf.broker_url = original


def run_load(run: LoadRun, *, database_url: str, drain_timeout: float = 300) -> LoadRun:
    """The whole run, in this process's Django (its database is the one `up` is pointed at)."""
    from snakepit.processes import free_port

    port = free_port()
    run.folder.mkdir(parents=True, exist_ok=True)
    run.load_before = os.getloadavg()[0]
    redis = RedisServer(run.folder)
    redis.start()
    say(f"Redis of the run's own on port {redis.port}")
    try:
        with this_process_on(redis.url):
            say(f"starting up --web 2 --workers 2 on port {port} (log: {run.folder / 'up.log'})")
            up = up_start(run, port, database_url, redis.url)
            slow = None
            try:
                wait_ready(port, up, run.folder / "up.log")
                say("ready; making the accounts and the Swiss tournaments")
                plan_make(run, port)
                run.events_before = events_count()
                say(f"{ladders_round_now()} ladder match(es) started")
                if run.slow_connections:
                    slow = SlowConnections(port, run.slow_connections)
                    slow.start()
                    say(f"{run.slow_connections} slow connections opening")
                try:
                    locust_run(run, port, redis)
                finally:
                    if slow is not None:
                        run.slow = slow.stop()
                run.events_after = events_count()
                run.load_after = os.getloadavg()[0]
                say("Locust done; stopping the ladders and waiting for their last matches and ratings")
                ladders_stop_and_drain(drain_timeout)
            finally:
                say("stopping up (SIGINT)")
                up_stop(up)
    finally:
        redis.stop()
    say("checking: replay, verify, rebuild, acknowledged actions, ratings")
    run.check = after_run_check(run)
    return run


# --- the report ---------------------------------------------------------------------------------


def statuses_all(run: LoadRun) -> Counter:
    """Every answer's status, Locust's and the slow connections' (0: closed with no answer)."""
    total = Counter()
    for counts in run.statuses.values():
        total.update(counts)
    for counts in run.slow.get("statuses", {}).values():
        total.update({code: count for code, count in counts.items() if code.isdigit()})
    return total


def server_errors(run: LoadRun) -> int:
    return sum(count for code, count in statuses_all(run).items() if code.startswith("5"))


def report(run: LoadRun) -> str:
    """Markdown, ready to paste into docs/operations.md: the conditions, then per endpoint requests,
    req/s, p50 and p99 (ms) and failures; then the statuses, the slow connections and the check."""
    lines = [
        f"{time.strftime('%d %B %Y %H:%M UTC', time.gmtime())}: {os.cpu_count()} cores, load average "
        f"{run.load_before:.1f} at the start and {run.load_after:.1f} at the end of the load.",
        "",
        f"{run.users} Locust users for {run.seconds} s against `up --web 2 --workers 2`"
        + (f", {run.slow_connections:,} slow connections held open" if run.slow_connections else "")
        + "; faults: "
        + ("; ".join(run.faults) or "none")
        + ".",
        "",
        "| endpoint | requests | req/s | p50 ms | p99 ms | failures |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in run.stats:
        name = f"{row['Type']} {row['Name']}" if row["Type"] else row["Name"]
        lines.append(
            f"| {name} | {row['Request Count']} | {float(row['Requests/s']):.1f} | {row['50%']} "
            f"| {row['99%']} "
            f"| {row['Failure Count']} |"
        )
    locust_total = Counter()
    for counts in run.statuses.values():
        locust_total.update(counts)
    lines += [
        "",
        f"Locust's statuses: {dict(sorted(locust_total.items()))} (0 = the connection closed with no "
        f"answer).",
    ]
    if run.slow:
        lines.append(
            f"Slow connections open at once, sampled every second after the first quarter of the load: "
            f"median {run.slow['held_median']:,}, least {run.slow['held_min']:,} (those on a killed web "
            f"process reconnect), most {run.slow['held_max']:,}; {run.slow['opened']:,} opened in all. "
            f"Their statuses by "
            f"kind: {json.dumps(run.slow['statuses'], sort_keys=True)} (unfinished: headers never "
            f"finished, `closed` when the server gave up on them or died)."
        )
    lines += [
        f"**5xx: {server_errors(run)}** (every answer, Locust's and the slow connections').",
        f"Match events appended during the run: {run.events_after - run.events_before}.",
        f"After-run check: {json.dumps(run.check)}.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=24)
    parser.add_argument("--seconds", type=int, default=180)
    parser.add_argument("--tournaments", type=int, default=3)
    parser.add_argument("--slow-connections", type=int, default=1000)
    parser.add_argument("--folder", type=Path, default=ROOT / "var" / "load")
    parser.add_argument(
        "--no-faults",
        action="store_true",
        help="A capacity run: no slow connections, no process killed, no Redis restart.",
    )
    parser.add_argument("--no-kills", action="store_true", help="Kill no worker and no web process.")
    parser.add_argument("--no-redis-restart", action="store_true", help="Leave Redis up throughout.")
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "snakepit.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from snakepit.processes import database_url

    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        raise SystemExit("the load test runs several processes on PostgreSQL: set DATABASE_URL")
    call_command("migrate", verbosity=0)
    run = LoadRun(
        options.users,
        options.seconds,
        options.tournaments,
        options.folder,
        kill_faults=not (options.no_faults or options.no_kills),
        slow_connections=0 if options.no_faults else options.slow_connections,
        redis_restart=not (options.no_faults or options.no_redis_restart),
    )
    run_load(run, database_url=database_url())
    text = report(run)
    (options.folder / "report.md").write_text(text + "\n")
    print(text)
    if server_errors(run):
        raise SystemExit(f"{server_errors(run)} answer(s) were a 5xx")


if __name__ == "__main__":
    main()
