"""The load test with faults: `manage.py up --web 2 --workers 2` on PostgreSQL and Redis, Locust's
players (tests/load/locustfile.py) against its port while the bot ladders play, a worker killed midway
(and started again by `up`), a web process killed (the balancer routes around it; `up` starts it
again), then a full check of what was stored and a report of the figures.

    python -m tests.load.harness --users 24 --seconds 180            # on DATABASE_URL and REDIS_URL

The check, after the ladders are stopped and their last matches played and rated:
- every match's stored result agrees with a replay of its log (`replay_matches`), and every finished
  match's chance verifies against its seed (`verify_matches`); every tournament's projections agree
  with its log (`rebuild_tournaments --check`);
- every action the service acknowledged (Locust recorded match, seq and idempotency key) is in its
  match's log exactly once, at that seq;
- every finished ladder match is rated exactly once, and each entry's rated games are its history.

tests/load/test_load_smoke.py runs it small in CI; docs/operations.md has the figures of a full run."""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import subprocess
import sys
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
}


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
    events_before: int = 0
    events_after: int = 0
    faults: list[str] = field(default_factory=list)
    stats: list[dict] = field(default_factory=list)
    statuses: dict[str, Counter] = field(default_factory=dict)
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


def up_start(run: LoadRun, port: int, database_url: str) -> subprocess.Popen:
    env = {
        **os.environ,
        **RUN_ENVIRONMENT,
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


def locust_run(run: LoadRun, port: int) -> None:
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
    schedule = [(run.seconds / 3, "worker-1"), (run.seconds / 2, "web-1")] if run.kill_faults else []
    for at, name in schedule:
        time.sleep(max(0.0, started + at - time.monotonic()))
        kill(run, name)
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


def run_load(run: LoadRun, *, database_url: str, drain_timeout: float = 300) -> LoadRun:
    """The whole run, in this process's Django (its database is the one `up` is pointed at)."""
    from snakepit.processes import free_port

    port = free_port()
    run.folder.mkdir(parents=True, exist_ok=True)
    say(f"starting up --web 2 --workers 2 on port {port} (log: {run.folder / 'up.log'})")
    up = up_start(run, port, database_url)
    try:
        wait_ready(port, up, run.folder / "up.log")
        say("ready; making the accounts and the Swiss tournaments")
        plan_make(run, port)
        run.events_before = events_count()
        say(f"{ladders_round_now()} ladder match(es) started")
        locust_run(run, port)
        run.events_after = events_count()
        say("Locust done; stopping the ladders and waiting for their last matches and ratings")
        ladders_stop_and_drain(drain_timeout)
    finally:
        say("stopping up (SIGINT)")
        up_stop(up)
    say("checking: replay, verify, rebuild, acknowledged actions, ratings")
    run.check = after_run_check(run)
    return run


# --- the report ---------------------------------------------------------------------------------


def report(run: LoadRun) -> str:
    """Markdown: per endpoint requests, req/s, p50 and p99 (ms), failures; then statuses and the check."""
    lines = [
        f"{run.users} Locust users for {run.seconds} s against `up --web 2 --workers 2`; faults: "
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
    total = Counter()
    for counts in run.statuses.values():
        total.update(counts)
    server_errors = sum(count for code, count in total.items() if code.startswith("5"))
    lines += [
        "",
        f"Statuses: {dict(sorted(total.items()))} (0 = the connection closed with no answer); "
        f"5xx: {server_errors}.",
        f"Match events appended during the run: {run.events_after - run.events_before}.",
        f"After-run check: {json.dumps(run.check)}.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=24)
    parser.add_argument("--seconds", type=int, default=180)
    parser.add_argument("--tournaments", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=ROOT / "var" / "load")
    parser.add_argument("--no-faults", action="store_true")
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "snakepit.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from snakepit.processes import database_url

    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3" or not settings.REDIS_URL:
        raise SystemExit("the load test runs on PostgreSQL and Redis: set DATABASE_URL and REDIS_URL")
    call_command("migrate", verbosity=0)
    run = LoadRun(
        options.users, options.seconds, options.tournaments, options.folder, kill_faults=not options.no_faults
    )
    run_load(run, database_url=database_url())
    text = report(run)
    (options.folder / "report.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
