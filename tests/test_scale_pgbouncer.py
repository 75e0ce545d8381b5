"""The service through PgBouncer in transaction mode (deploy/pgbouncer/pgbouncer.ini, its ports and
auth swapped for the test's): a web process of four threads and a Celery worker share two server
connections; a person plays a Rat-Snake match with contributed entropy against a bot, bots play a
ladder round on the worker, and the checks that read with iterator() (replay, verify, rebuild) run
through it too. The settings that make it work (no server-side cursors, no prepared statements) are
checked on their own as well. PostgreSQL only; under CI=true a missing PgBouncer is a failure (.ci/run
installs it)."""

from __future__ import annotations

import configparser
import hashlib
import http.client
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

from django.db import connection

from snakepit.processes import celery_process, free_port, private_broker, web_process, worker_ready
from tests.support import require_postgresql, unavailable
from tests.workers import wait_until

ROOT = Path(__file__).resolve().parents[1]
DEPLOYED = ROOT / "deploy" / "pgbouncer" / "pgbouncer.ini"
SERVER_CONNECTIONS = 2


def settings_in_a_fresh_process(*, setup: str = "django.setup()", **env: str) -> dict:
    """The database settings a new process reads from `env`, after `setup` (the web process's
    own: `import snakepit.asgi`)."""
    code = (
        f"import json, django; from django.conf import settings; {setup};"
        "db = settings.DATABASES['default'];"
        "print(json.dumps({'options': db['OPTIONS'], 'max_age': db['CONN_MAX_AGE'],"
        " 'no_server_cursors': db.get('DISABLE_SERVER_SIDE_CURSORS', False)}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "snakepit.settings", **env},
    )
    return json.loads(result.stdout)


def test_pgbouncer_and_pool_settings():
    url = "postgres://app@db.example:6432/snakepit"
    plain = settings_in_a_fresh_process(DATABASE_URL=url)
    assert plain["max_age"] == 60 and "pool" not in plain["options"] and not plain["no_server_cursors"]
    bounced = settings_in_a_fresh_process(DATABASE_URL=url, SNAKEPIT_DB_PGBOUNCER="1")
    assert bounced["no_server_cursors"] is True  # iterator() would declare WITH HOLD cursors
    assert bounced["options"]["prepare_threshold"] is None  # no prepared statements outlive a transaction
    pooled = settings_in_a_fresh_process(DATABASE_URL=url, SNAKEPIT_DB_POOL_SIZE="6")
    assert pooled["max_age"] == 0  # Django's pool hands connections back at the end of each request
    assert pooled["options"]["pool"]["max_size"] == 6 and pooled["options"]["pool"]["min_size"] <= 6
    embedded = settings_in_a_fresh_process(DATABASE_URL="", CI="", SNAKEPIT_DB_POOL_SIZE="6")
    assert "pool" not in embedded["options"]  # SQLite has no pool


def test_the_web_process_pools_its_postgresql_connections_by_default():
    """Under ASGI every request is a new thread, so unpooled each one connects anew (snakepit/asgi.py)."""
    url = "postgres://app@db.example:5432/snakepit"
    web = settings_in_a_fresh_process(
        setup="import snakepit.asgi", DATABASE_URL=url, SNAKEPIT_WEB_THREADS="5"
    )
    # Its requests inside Django and its streams' reads, each up to SNAKEPIT_WEB_THREADS at once.
    assert web["max_age"] == 0 and web["options"]["pool"]["max_size"] == 10
    unpooled = settings_in_a_fresh_process(
        setup="import snakepit.asgi", DATABASE_URL=url, SNAKEPIT_DB_POOL_SIZE="0"
    )
    assert unpooled["max_age"] == 0 and "pool" not in unpooled["options"]
    embedded = settings_in_a_fresh_process(setup="import snakepit.asgi", DATABASE_URL="", CI="")
    assert "pool" not in embedded["options"]


def test_the_deployed_pgbouncer_configuration_pools_by_transaction():
    config = configparser.ConfigParser()
    config.read(DEPLOYED)
    assert config["pgbouncer"]["pool_mode"] == "transaction"
    assert config["pgbouncer"]["auth_type"] == "scram-sha-256"  # never trust on a network


def pgbouncer_binary() -> str:
    found = shutil.which("pgbouncer") or (
        "/usr/sbin/pgbouncer" if Path("/usr/sbin/pgbouncer").exists() else None
    )
    if found:
        return found
    unavailable("PgBouncer is not installed (apt-get install pgbouncer; .ci/run installs it)")


@contextmanager
def pgbouncer(database: dict) -> tuple[int, Path]:
    """PgBouncer on a free port with the deployed file's pool settings, in front of this test's server."""
    binary = pgbouncer_binary()
    folder = Path(tempfile.mkdtemp(prefix="pgbouncer-"))
    port = free_port()
    config = configparser.ConfigParser()
    config.read(DEPLOYED)
    config["databases"] = {"*": f"host={database['HOST'] or '127.0.0.1'} port={database['PORT'] or 5432}"}
    config["pgbouncer"].update(
        {
            "listen_addr": "127.0.0.1",
            "listen_port": str(port),
            "unix_socket_dir": "",
            "default_pool_size": str(SERVER_CONNECTIONS),
            "reserve_pool_size": "0",
            # The test's server trusts 127.0.0.1; the deployed file's scram-sha-256 needs real secrets.
            "auth_type": "trust",
            "auth_file": str(folder / "userlist.txt"),
            "admin_users": database["USER"],
            "logfile": str(folder / "pgbouncer.log"),
            "pidfile": str(folder / "pgbouncer.pid"),
        }
    )
    with open(folder / "pgbouncer.ini", "w") as out:
        config.write(out)
    (folder / "userlist.txt").write_text(f'"{database["USER"]}" ""\n')
    as_user = {}
    if os.geteuid() == 0:  # PgBouncer refuses to run as root
        import pwd

        account = pwd.getpwnam("postgres")
        os.chown(folder, account.pw_uid, account.pw_gid)
        for path in folder.iterdir():
            os.chown(path, account.pw_uid, account.pw_gid)
        as_user = {"user": account.pw_uid, "group": account.pw_gid}
    process = subprocess.Popen(
        [binary, str(folder / "pgbouncer.ini")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        **as_user,
    )
    try:
        import psycopg

        def accepting() -> bool:
            try:
                psycopg.connect(
                    host="127.0.0.1",
                    port=port,
                    user=database["USER"],
                    dbname=database["NAME"],
                    connect_timeout=2,
                ).close()
                return True
            except psycopg.OperationalError:
                return False

        wait_until(
            accepting, timeout=20, what="PgBouncer to accept connections", log=folder / "pgbouncer.log"
        )
        yield port, folder
    finally:
        process.terminate()
        process.wait(timeout=20)
        shutil.rmtree(folder, ignore_errors=True)


def server_connections(port: int, user: str, database: str) -> int:
    """Server connections PgBouncer holds to `database` (its admin console speaks the simple protocol)."""
    shown = subprocess.run(
        [
            "psql",
            "-w",
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-U",
            user,
            "-d",
            "pgbouncer",
            "-AtF",
            "|",
            "-c",
            "SHOW SERVERS",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sum(1 for line in shown.splitlines() if line.split("|")[2:3] == [database])


class Api:
    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token

    def __call__(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        client = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            client.request(
                method,
                path,
                body=json.dumps(body) if body is not None else None,
                headers={
                    "Authorization": f"Token {self.token}",
                    "Content-Type": "application/json",
                },
            )
            response = client.getresponse()
            return response.status, json.loads(response.read() or b"{}")
        finally:
            client.close()


def test_the_service_runs_through_pgbouncer_in_transaction_mode(
    transactional_db, tmp_path, django_user_model
):
    require_postgresql("PgBouncer stands in front of PostgreSQL")
    from rest_framework.authtoken.models import Token

    from matches.models import Match
    from ratings.models import Ladder, RatedMatch
    from ratings.rounds import ladder_round_create
    from ratings.services import ladder_create, ladder_join

    database = connection.settings_dict
    user = django_user_model.objects.create_user("bouncer", password=None)
    token = Token.objects.create(user=user).key
    ladder = ladder_create(game_key="rat-snake", name="Bounced", slug="bounced", round_interval_seconds=3600)
    for bot in ("heuristic", "random", "heuristic", "random"):
        ladder_join(ladder=ladder, bot=bot)
    with ExitStack() as stack:
        port, _ = stack.enter_context(pgbouncer(database))
        through = f"postgres://{database['USER']}@127.0.0.1:{port}/{database['NAME']}"
        env = stack.enter_context(private_broker(tmp_path / "broker"))
        env = {**env, "DATABASE_URL": through, "SNAKEPIT_DB_PGBOUNCER": "1"}
        web = free_port()
        stack.enter_context(web_process(env, tmp_path / "web.log", port=web, threads=4))
        worker = stack.enter_context(celery_process("worker", env, tmp_path / "worker.log"))
        worker_ready(tmp_path / "worker.log", worker)
        api = Api(web, token)

        status, match = api(
            "POST",
            "/api/matches/",
            {
                "game": "rat-snake",
                "seats": [{"user": "bouncer"}, {"bot": "heuristic"}],
                "options": {"passes": 1},
            },
        )
        assert status == 201, match
        if match.get("entropy") == "contributed":
            value = secrets.token_hex(32)
            for body in (
                {"commitment": hashlib.sha256(value.encode()).hexdigest(), "seat": 0},
                {"value": value, "seat": 0},
            ):
                status, answer = api("POST", f"/api/matches/{match['id']}/entropy/", body)
                assert status == 201, answer
        for number in range(500):
            status, view = api("GET", f"/api/matches/{match['id']}/view/?seat=0")
            assert status == 200, view
            if view["status"] == "finished":
                break
            if not view["legal_actions"]:
                time.sleep(0.1)
                continue
            body = {
                "expected_seq": view["seq"],
                "action": view["legal_actions"][0],
                "seat": 0,
                "idempotency_key": f"bounced-{number}",
            }
            status, acted = api("POST", f"/api/matches/{match['id']}/actions/", body)
            assert status == 201, acted
            status, again = api("POST", f"/api/matches/{match['id']}/actions/", body)  # a retry: replayed
            assert (status, again["event"]["seq"]) == (200, acted["event"]["seq"])
        else:
            raise AssertionError("the match did not finish within 500 actions")
        status, verified = api("GET", f"/api/matches/{match['id']}/verify/")
        assert status == 200 and verified["verified"], verified

        played = ladder_round_create(ladder_id=ladder.pk).matches  # the worker plays them, through PgBouncer
        assert len(played) == 2
        wait_until(
            lambda: RatedMatch.objects.filter(match__in=played).count() == 2,
            timeout=120,
            what="the worker to play and rate the ladder round",
            log=tmp_path / "worker.log",
        )
        assert Match.objects.get(pk=played[0].pk).status == Match.Status.FINISHED
        assert Ladder.objects.get(pk=ladder.pk).entries.filter(games=1).count() == 4

        for command in ("replay_matches", "verify_matches", "rebuild_tournaments", "rebuild_ratings"):
            result = subprocess.run(
                [sys.executable, "manage.py", command],
                cwd=ROOT,
                capture_output=True,
                text=True,
                env={**os.environ, **env},
                check=False,
            )
            assert result.returncode == 0, (command, result.stderr[-2000:])
        assert 0 < server_connections(port, database["USER"], database["NAME"]) <= SERVER_CONNECTIONS
