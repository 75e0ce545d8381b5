"""HTTP figures: requests per second and p99 latency of the service's endpoints, answered by a real
web server (the one `manage.py up` starts: uvicorn behind snakepit/serving.py, one process, its
default SNAKEPIT_WEB_THREADS), on a free loopback port, over the bench's throwaway database and broker.

`http.ceiling_rps` is `/healthz` on the same server in the same run: the whole Django stack with a
view that does nothing, so an endpoint's rate over it says what the endpoint itself costs, whatever
the machine's load. The load is `CLIENTS` threads in this process, each holding one kept-alive
connection and sending its next request when the last is answered, for `bench --seconds`; the rate
is the answers over the elapsed time, p99 the 99th percentile of their latencies. Any answer but
the expected status stops the bench: a rate of errors is not a rate."""

from __future__ import annotations

import asyncio
import http.client
import json
import math
import random
import selectors
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from tqdm import tqdm

import snakepit.bench
from matches.services import SeatSpec, match_create
from ratings import services as ratings_services
from snakepit.bench import Figure
from snakepit.bench.isolation import bench_broker
from snakepit.bench.tournaments import swiss_at_tables
from snakepit.processes import free_port, web_process

CLIENTS = 4
HOST = "127.0.0.1"
# The bench's people act far faster than the rates allow a person (settings.SNAKEPIT_RATES).
UNTHROTTLED = {"SNAKEPIT_RATE_CREATE": "1000000/min", "SNAKEPIT_RATE_ACTIONS": "1000000/min"}
# Enough finished matches that the listing's first page is full (api/pagination.py).
LISTED_MATCHES = 25
LADDER_ENTRIES = 16
# As many as the home page shows (snakepit/views.py), so that a cost per ladder shows in its figure.
LADDERS = 10
TOURNAMENT_PLAYERS = 32
ACTION_OPTIONS = {"passes": 1}
NEW_MATCH_TRIES = 20
# Idle connections tried in turn (each step adds to the last; uvicorn refuses past 10,000,
# SNAKEPIT_WEB_CONNECTION_LIMIT), and the p99 the other requests must keep meanwhile (issue #29).
IDLE_STEPS = (1_000, 2_000, 5_000, 8_000)
IDLE_P99_MS = 100.0
# Subscribers on one match's stream (api/streams.py), and the person's moves whose deliveries are timed.
FANOUT_SUBSCRIBERS = 1_000
FANOUT_APPENDS = 5
FANOUT_TIMEOUT_SECONDS = 60.0


@dataclass
class Load:
    """What the clients of one endpoint got: every timed answer's latency, in seconds."""

    elapsed: float
    latencies: list[float] = field(default_factory=list)

    @property
    def rps(self) -> float:
        return len(self.latencies) / self.elapsed

    @property
    def p99_ms(self) -> float:
        ordered = sorted(self.latencies)
        return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)] * 1000


class Client:
    """One connection's requests: `send` makes the timed one and says whether it went as expected;
    `between` does whatever untimed work the next one needs (a person's new match)."""

    def between(self, connection: http.client.HTTPConnection) -> None:
        pass

    def send(self, connection: http.client.HTTPConnection) -> None:
        raise NotImplementedError


class Get(Client):
    def __init__(self, path: str, accept: str = "application/json") -> None:
        self.path, self.accept = path, accept

    def send(self, connection) -> None:
        answer(connection, "GET", self.path, None, {"Accept": self.accept}, 200)


class Act(Client):
    """A person playing Rat-Snake against the built-in random bot through the API with a token: each
    timed request is one POST .../actions/ with the seq last seen (the bot answers before it
    returns); a new match is made, untimed, when one ends."""

    def __init__(self, username: str, token: str, seed: int) -> None:
        self.username = username
        self.headers = {"Authorization": f"Token {token}", "Accept": "application/json"}
        self.rng = random.Random(seed)
        self.match_id: int | None = None
        self.seq = 0
        self.legal: list = []

    def between(self, connection) -> None:
        if self.match_id is not None and self.legal:
            return
        body = {
            "game": "rat-snake",
            "seats": [{"user": self.username}, {"bot": "random"}],
            "options": ACTION_OPTIONS,
            "entropy": "server",
        }
        # A new match may already be over when the bot's opening moves end it: try another.
        for _ in range(NEW_MATCH_TRIES):
            self.match_id = json.loads(answer(connection, "POST", "/api/matches/", body, self.headers, 201))[
                "id"
            ]
            view = answer(
                connection, "GET", f"/api/matches/{self.match_id}/view/?seat=0", None, self.headers, 200
            )
            self._saw(view)
            if self.legal:
                return
        raise RuntimeError(f"{NEW_MATCH_TRIES} new matches left the person no move; the last: {view[:300]!r}")

    def send(self, connection) -> None:
        body = {"expected_seq": self.seq, "action": self.rng.choice(self.legal), "seat": 0}
        self._saw(
            answer(connection, "POST", f"/api/matches/{self.match_id}/actions/", body, self.headers, 201)
        )

    def _saw(self, raw: bytes) -> None:
        seen = json.loads(raw)
        self.seq = seen["seq"]
        self.legal = seen["legal_actions"] if seen["status"] == "running" else []


def answer(connection, method: str, path: str, body: dict | None, headers: dict, expected: int) -> bytes:
    payload = json.dumps(body).encode() if body is not None else None
    sent = {**headers, "Content-Type": "application/json"} if payload is not None else headers
    connection.request(method, path, body=payload, headers=sent)
    response = connection.getresponse()
    raw = response.read()
    if response.status != expected:
        raise RuntimeError(f"{method} {path} answered {response.status}, not {expected}: {raw[:300]!r}")
    return raw


def load(port: int, clients: list[Client], seconds: float) -> Load:
    """Each client on its own thread and kept-alive connection, for `seconds`."""
    latencies: list[list[float]] = [[] for _ in clients]
    errors: list[BaseException] = []
    start = threading.Barrier(len(clients) + 1)
    deadline = [0.0]

    def run(client: Client, mine: list[float]) -> None:
        connection = http.client.HTTPConnection(HOST, port, timeout=60)
        try:
            start.wait()
            # At least one timed answer each, however short the run (a new match may take it all).
            while (not mine or time.perf_counter() < deadline[0]) and not errors:
                client.between(connection)
                sent = time.perf_counter()
                client.send(connection)
                mine.append(time.perf_counter() - sent)
        except BaseException as error:  # noqa: BLE001 - handed to the measuring thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=pair, daemon=True) for pair in zip(clients, latencies)]
    for thread in threads:
        thread.start()
    deadline[0] = time.perf_counter() + seconds
    started = time.perf_counter()
    start.wait()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if errors:
        raise errors[0]
    return Load(elapsed, [latency for mine in latencies for latency in mine])


@dataclass(frozen=True)
class Endpoint:
    key: str
    label: str
    clients: Callable[[int], list[Client]]


def endpoints(fixtures: dict) -> list[Endpoint]:
    match = f"/api/matches/{fixtures['match']}"

    def reading(path: str, accept: str = "application/json") -> Callable[[int], list[Client]]:
        return lambda count: [Get(path, accept) for _ in range(count)]

    return [
        Endpoint("ceiling", "GET /healthz, the do-nothing view (the ceiling)", reading("/healthz")),
        Endpoint("games", "GET /api/games/", reading("/api/games/")),
        Endpoint("match", "GET /api/matches/{id}/ (a finished bot match)", reading(f"{match}/")),
        Endpoint("view", "GET /api/matches/{id}/view/", reading(f"{match}/view/")),
        Endpoint("events", "GET /api/matches/{id}/events/ (the whole log)", reading(f"{match}/events/")),
        Endpoint(
            "standings",
            f"GET /api/tournaments/{{slug}}/standings/ ({TOURNAMENT_PLAYERS} players)",
            reading(f"/api/tournaments/{fixtures['tournament']}/standings/"),
        ),
        Endpoint(
            "leaderboard",
            f"GET /api/ladders/{{slug}}/leaderboard/ ({LADDER_ENTRIES} entries)",
            reading(f"/api/ladders/{fixtures['ladder']}/leaderboard/"),
        ),
        Endpoint("ladders", f"GET /api/ladders/ ({LADDERS} ladders)", reading("/api/ladders/")),
        Endpoint("home", "GET / (the home page)", reading("/", "text/html")),
        Endpoint(
            "action",
            "POST /api/matches/{id}/actions/ (a person's move against a bot)",
            lambda count: [Act(*person, seed) for seed, person in enumerate(fixtures["people"][:count])],
        ),
    ]


def make_fixtures(clients: int) -> dict:
    """In the throwaway database: finished bot matches to list and read, a Swiss at tables,
    ladders of bots, and a person with a token for each acting client."""
    User = get_user_model()
    matches = [
        match_create(
            game_key="rat-snake", seats=[SeatSpec(bot="heuristic"), SeatSpec(bot="random")], bots_play="now"
        ).pk
        for _ in range(LISTED_MATCHES)
    ]
    stamp = time.monotonic_ns()
    tournament = swiss_at_tables(TOURNAMENT_PLAYERS, f"bench-http-{stamp}")
    ladders = []
    for number in range(LADDERS):
        ladder = ratings_services.ladder_create(
            game_key="rat-snake", name=f"bench-http-{stamp}-{number}", options={"passes": 1}
        )
        for _ in range(LADDER_ENTRIES):
            ratings_services.ladder_join(ladder=ladder, bot="random")
        ladders.append(ladder)
    people = [User.objects.create_user(username=f"bench-person-{stamp}-{n}") for n in range(clients)]
    return {
        "match": matches[0],
        "tournament": tournament.slug,
        "ladder": ladders[0].slug,
        "people": [(person.username, Token.objects.create(user=person).key) for person in people],
    }


def idle_connections_held(port: int, clients: int, seconds: float, steps: tuple[int, ...]) -> int:
    """The most idle connections of `steps` the server held while `GET /api/games/` from `clients`
    others kept its p99 within IDLE_P99_MS: each a TCP connection accepted and never sent a request,
    as a parked or slow client holds one. Held means none of them was closed or answered (nothing
    to read on any) by the end of the step's measurement; 0 if the first step did not hold."""
    held, idle = 0, []
    watcher = selectors.DefaultSelector()
    try:
        for count in steps:
            while len(idle) < count:
                connection = socket.create_connection((HOST, port), timeout=10)
                watcher.register(connection, selectors.EVENT_READ)
                idle.append(connection)
            try:
                measured = load(port, [Get("/api/games/") for _ in range(clients)], seconds)
            except (OSError, RuntimeError):
                break
            dropped = len(watcher.select(timeout=0))
            print(
                f"live.idle_connections_held: {count} idle, p99 {measured.p99_ms:.1f} ms, {dropped} dropped",
                file=sys.stderr,
            )
            if dropped or measured.p99_ms > IDLE_P99_MS:
                break
            held = count
    finally:
        watcher.close()
        for connection in idle:
            connection.close()
    return held


def fanout_delays(port: int, person: tuple[str, str], subscribers: int, appends: int) -> list[float]:
    """Seconds from a person's move being sent to its event reaching each of `subscribers`
    spectators of the match's stream, for each of `appends` moves: the stream is fed by the commit
    (matches/feed.py), so this is the fan-out's cost, every subscriber's read of the log included."""
    actor = Act(*person, seed=0)
    connection = http.client.HTTPConnection(HOST, port, timeout=60)
    try:
        actor.between(connection)
        return asyncio.run(_fanout(port, actor, connection, subscribers, appends))
    finally:
        connection.close()


async def _fanout(port: int, actor: Act, connection, subscribers: int, appends: int) -> list[float]:
    ready = asyncio.Semaphore(0)
    delays: list[float] = []
    state = {"target": None, "sent": 0.0, "left": 0, "done": asyncio.Event()}
    request = (
        f"GET /api/matches/{actor.match_id}/stream/?after={actor.seq - 1} HTTP/1.1\r\n"
        f"Host: {HOST}\r\nAccept: text/event-stream\r\n\r\n"
    ).encode()

    async def subscriber() -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(request)
        buffered, seen, was_ready, last_round = b"", 0, False, None
        try:
            while chunk := await reader.read(65536):
                arrived = time.perf_counter()
                buffered += chunk
                *lines, buffered = buffered.split(b"\n")
                for line in lines:
                    if line.startswith(b"id: "):
                        seen = max(seen, int(line[4:]))
                    elif line == b"event: view" and not was_ready:
                        was_ready = True
                        ready.release()
                target = state["target"]
                if target is not None and seen >= target and last_round != target:
                    last_round = target
                    delays.append(arrived - state["sent"])
                    state["left"] -= 1
                    if state["left"] == 0:
                        state["done"].set()
        finally:
            writer.close()

    tasks = [asyncio.create_task(subscriber()) for _ in range(subscribers)]
    try:
        for _ in range(subscribers):  # each has read the log once and waits for the next append
            await asyncio.wait_for(ready.acquire(), FANOUT_TIMEOUT_SECONDS)
        # The person's kept-alive connection may have idled past the server's keep-alive timeout
        # while the subscribers got ready: the first move opens a new one.
        connection.close()
        for _ in range(appends):
            if not actor.legal:
                break
            state.update(target=actor.seq + 1, left=subscribers, done=asyncio.Event())
            state["sent"] = time.perf_counter()
            await asyncio.to_thread(actor.send, connection)
            await asyncio.wait_for(state["done"].wait(), FANOUT_TIMEOUT_SECONDS)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return delays


def figures(
    clients: int = CLIENTS,
    idle_steps: tuple[int, ...] = IDLE_STEPS,
    fanout_subscribers: int = FANOUT_SUBSCRIBERS,
) -> list[Figure]:
    seconds = snakepit.bench.BENCH_SECONDS
    fixtures = make_fixtures(clients)
    measured: dict[str, Load] = {}
    with tempfile.TemporaryDirectory() as folder, bench_broker(Path(folder)) as env:
        port = free_port(HOST)
        with web_process({**env, **UNTHROTTLED}, Path(folder) / "web.log", host=HOST, port=port):
            chosen = endpoints(fixtures)
            # A warm-up of every endpoint, so that no figure times the first import of a view.
            for endpoint in chosen:
                load(port, endpoint.clients(1), min(seconds, 0.2))
            for endpoint in tqdm(chosen, desc="http", unit="endpoint", file=sys.stderr, leave=False):
                measured[endpoint.key] = load(port, endpoint.clients(clients), seconds)
            idle_held = idle_connections_held(port, clients, seconds, idle_steps)
            fanout = Load(1.0, fanout_delays(port, fixtures["people"][0], fanout_subscribers, FANOUT_APPENDS))
    rows = [
        Figure(
            "http.ceiling_rps",
            f"GET /healthz on the bench's web server, {clients} clients (the ceiling)",
            measured["ceiling"].rps,
            "requests/s",
        )
    ]
    for endpoint in chosen[1:]:
        figure = measured[endpoint.key]
        rows.append(
            Figure(
                f"http.{endpoint.key}_rps", f"{endpoint.label}, {clients} clients", figure.rps, "requests/s"
            )
        )
        rows.append(Figure(f"http.{endpoint.key}_p99_ms", f"{endpoint.label}, p99", figure.p99_ms, "ms"))
    rows.append(
        Figure(
            "live.idle_connections_held",
            f"Idle connections held, GET /api/games/ p99 within {IDLE_P99_MS:.0f} ms (most of {idle_steps})",
            float(idle_held),
            "connections",
        )
    )
    rows.append(
        Figure(
            "live.fanout_p99_ms",
            f"A move's event to {fanout_subscribers:,} stream subscribers, p99 of deliveries",
            fanout.p99_ms,
            "ms",
        )
    )
    return rows
