"""The database protects the log (PostgreSQL): TRUNCATE of the event tables, a change of a match's
set-up and a change of its seats are refused by triggers (matches/migrations/0003,
tournaments/migrations/0004), and the service's role, which owns nothing, cannot TRUNCATE, ALTER or
DROP the event tables nor drop or disable their triggers (deploy/roles.sql and `migrate` with
DATABASE_OWNER_URL). The guards are PostgreSQL triggers and roles: on SQLite these tests skip; under
CI=true the suite runs on PostgreSQL or not at all (tests/conftest.py)."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import DatabaseError, connection, transaction

from matches import services
from matches.models import Match, MatchEvent, MatchSeat
from matches.services import SeatSpec
from snakepit.management.commands.migrate import service_role_grant
from tests.support import unavailable
from tournaments import services as tournaments
from tournaments.models import TournamentEvent

ROOT = Path(__file__).resolve().parents[2]
REFUSED_BY_TRIGGER = "23001"  # restrict_violation, raised by the guards
NO_PRIVILEGE = "42501"  # insufficient_privilege: the role may not do it at all
EVENT_TABLES = (MatchEvent._meta.db_table, TournamentEvent._meta.db_table)
EVENT_TRIGGERS = {
    MatchEvent._meta.db_table: ("match_event_append_only", "match_event_no_truncate"),
    TournamentEvent._meta.db_table: ("tournament_event_append_only", "tournament_event_no_truncate"),
}


@pytest.fixture
def postgres():
    """The guards are PostgreSQL's: skip elsewhere, except under CI=true, where that is a failure."""
    if connection.vendor != "postgresql":
        unavailable("the log's guards are PostgreSQL triggers and roles: this test needs PostgreSQL")


def sqlstate(error: BaseException) -> str | None:
    while error is not None:
        if getattr(error, "sqlstate", None):
            return error.sqlstate
        error = error.__cause__
    return None


@contextmanager
def refused(code: str):
    """The statements inside fail with SQLSTATE `code`, and the test's transaction goes on."""
    with pytest.raises(DatabaseError) as caught, transaction.atomic():
        yield
    assert sqlstate(caught.value) == code, caught.value


def execute(sql: str, params=None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@contextmanager
def acting_as_a_new_role(privileges: str | None):
    """Inside the test's transaction (so all of it is rolled back): a fresh role that is neither a
    superuser nor an owner, given the service's grants (`privileges=None`) or `privileges` on every
    table, and the connection acting as it."""
    role = f"snakepit_guard_test_{secrets.token_hex(4)}"
    execute(f'CREATE ROLE "{role}" NOSUPERUSER NOINHERIT')
    if privileges is None:
        service_role_grant(connection, role)
    else:
        execute(f'GRANT USAGE ON SCHEMA public TO "{role}"')
        execute(f'GRANT {privileges} ON ALL TABLES IN SCHEMA public TO "{role}"')
        execute(f'GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO "{role}"')
    execute(f'SET LOCAL ROLE "{role}"')
    try:
        yield role
    finally:
        execute("RESET ROLE")


def a_bot_match():
    match = services.match_create(
        game_key="rat-snake",
        seats=[SeatSpec(bot="heuristic"), SeatSpec(bot="random"), SeatSpec(bot="random")],
        options={"passes": 1},
        bots_play="now",
        seed=b"seed of the guarded match",
    )
    match.refresh_from_db()
    assert match.is_finished and match.events.exists()
    return match


def a_started_table_tournament(users):
    alice, bob = users["alice"], users["bob"]
    tournament = tournaments.tournament_create(
        organiser=alice, name="Sealed", game_key="rat-snake", format="swiss", result_mode="table"
    )
    tournaments.tournament_open(slug=tournament.slug, user=alice)
    for user in (alice, bob):
        tournaments.tournament_register(slug=tournament.slug, user=user)
    tournaments.tournament_start(slug=tournament.slug, user=alice)
    assert tournament.events.count() >= 3
    return tournament


@pytest.mark.django_db
def test_the_service_role_plays_matches_and_tournaments_but_cannot_change_or_empty_the_logs(postgres, users):
    with acting_as_a_new_role(privileges=None):
        match = a_bot_match()  # seats with the match, then events, then the projection's UPDATE
        human = services.match_create(
            game_key="rat-snake",
            seats=[SeatSpec(user=users["alice"]), SeatSpec(user=users["bob"])],
            options={"side_bets": False},
            created_by=users["alice"],
        )
        tournament = a_started_table_tournament(users)
        execute("SET CONSTRAINTS ALL IMMEDIATE")  # TRUNCATE waits for no deferred foreign-key check
        for table in EVENT_TABLES:
            with refused(NO_PRIVILEGE):
                execute(f"TRUNCATE {table}")
            with refused(NO_PRIVILEGE):
                execute(f"UPDATE {table} SET payload = '{{}}'")
            with refused(NO_PRIVILEGE):
                execute(f"DELETE FROM {table}")
        with refused(NO_PRIVILEGE):
            MatchSeat.objects.filter(match=human).update(bot="random")
        with refused(NO_PRIVILEGE):
            MatchSeat.objects.filter(match=human).delete()
        # The service may write a match's projection, never its set-up.
        with refused(REFUSED_BY_TRIGGER):
            Match.objects.filter(pk=match.pk).update(seed=b"another seed of thirty-two bytes")
        with refused(REFUSED_BY_TRIGGER):
            Match.objects.filter(pk=human.pk).update(options={"side_bets": True})
        human.save()  # a full save rewrites the same set-up, which is no change
        assert Match.objects.filter(pk=human.pk).update(status=Match.Status.FINISHED) == 1
    assert tournament.events.exists() and match.events.exists()


@pytest.mark.django_db
def test_the_guards_hold_against_a_role_granted_every_privilege(postgres, users):
    match = a_bot_match()
    tournament = a_started_table_tournament(users)
    execute("SET CONSTRAINTS ALL IMMEDIATE")
    with acting_as_a_new_role(privileges="ALL PRIVILEGES"):
        for table in EVENT_TABLES:
            with refused(REFUSED_BY_TRIGGER):
                execute(f"TRUNCATE {table}")
        with refused(REFUSED_BY_TRIGGER):
            execute(f"TRUNCATE {Match._meta.db_table} CASCADE")  # reaches the events, and stops there
        for column, value in [
            ("seed", b"x"),
            ("seed_commitment", "0" * 64),
            ("game", "rattlebones"),
            ("engine_version", "0"),
            ("options", '{"passes": 9}'),
            ("entropy", "contributed"),  # whether the seats' parts are mixed in is set-up too (issue #23)
        ]:
            with refused(REFUSED_BY_TRIGGER):
                execute(f"UPDATE {Match._meta.db_table} SET {column} = %s WHERE id = %s", [value, match.pk])
        with refused(REFUSED_BY_TRIGGER):
            MatchSeat.objects.filter(match=match, index=0).update(bot="random")
        with refused(REFUSED_BY_TRIGGER):
            MatchSeat.objects.filter(match=match).delete()
        with refused(REFUSED_BY_TRIGGER):
            MatchSeat.objects.create(match=match, index=3, bot="random")  # the match has begun
        with refused(REFUSED_BY_TRIGGER):
            execute("SET LOCAL snakepit.unsealed = 'on'; TRUNCATE matches_matchevent")  # not the owner
    assert match.events.count() > 0 and tournament.events.count() >= 3
    assert list(match.seats.values_list("bot", flat=True)) == ["heuristic", "random", "random"]


# --- the two roles, end to end, on a database of their own -------------------------------------


def superuser_connect(dbname: str):
    import psycopg

    database = settings.DATABASES["default"]
    return psycopg.connect(
        host=database["HOST"] or "127.0.0.1",
        port=database["PORT"] or 5432,
        user=database["USER"],
        password=database["PASSWORD"] or None,
        dbname=dbname,
        autocommit=True,
        connect_timeout=10,
    )


def role_url(role: str, dbname: str) -> str:
    database = settings.DATABASES["default"]
    return f"postgres://{role}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}/{dbname}"


def manage(*args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


SERVICE_PLAYS = """
from django.contrib.auth import get_user_model
from matches import services
from matches.services import SeatSpec
from tournaments import services as tournaments
User = get_user_model()
ann, ben = User.objects.create_user("ann"), User.objects.create_user("ben")
match = services.match_create(game_key="rat-snake", seats=[SeatSpec(bot="heuristic"), SeatSpec(bot="random"),
    SeatSpec(bot="random")], options={"passes": 1}, bots_play="now")
match.refresh_from_db()
assert match.is_finished
tournament = tournaments.tournament_create(organiser=ann, name="Roles", game_key="rat-snake", format="swiss",
    result_mode="table")
tournaments.tournament_open(slug=tournament.slug, user=ann)
for user in (ann, ben):
    tournaments.tournament_register(slug=tournament.slug, user=user)
tournaments.tournament_start(slug=tournament.slug, user=ann)
print(match.pk)
"""


class Session:
    """One role's connection, each statement in a transaction of its own that is rolled back."""

    def __init__(self, role: str, dbname: str):
        import psycopg

        database = settings.DATABASES["default"]
        self.connection = psycopg.connect(
            host=database["HOST"] or "127.0.0.1",
            port=database["PORT"] or 5432,
            user=role,
            dbname=dbname,
            connect_timeout=10,
        )

    def run(self, *statements: str):
        """The rows of the last statement."""
        try:
            with self.connection.cursor() as cursor:
                for statement in statements:
                    cursor.execute(statement)
                return cursor.fetchall() if cursor.description else None
        finally:
            self.connection.rollback()

    def refused(self, sql: str, code: str) -> None:
        import psycopg

        with pytest.raises(psycopg.Error) as caught:
            self.run(sql)
        assert caught.value.sqlstate == code, f"{sql}: {caught.value}"

    def close(self):
        self.connection.close()


def test_the_service_role_cannot_truncate_drop_triggers_or_alter_the_event_tables(postgres):
    """deploy/roles.sql makes the roles and the database; `migrate` runs as the owner and grants the
    service's role; the service plays as that role, which can read and add events and nothing more."""
    psql = shutil.which("psql")
    if psql is None:
        unavailable("psql is not installed, and deploy/roles.sql needs it")
    with superuser_connect("postgres") as admin:
        if not admin.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0]:
            unavailable("DATABASE_URL's user is not a superuser, and creating roles needs one")
    suffix = f"{os.getpid()}_{secrets.token_hex(3)}"
    owner, app, dbname = f"snakepit_owner_{suffix}", f"snakepit_app_{suffix}", f"snakepit_roles_{suffix}"
    database = settings.DATABASES["default"]
    sessions: list[Session] = []
    try:
        subprocess.run(
            [
                psql,
                "-X",
                "-q",
                "-h",
                database["HOST"] or "127.0.0.1",
                "-p",
                str(database["PORT"] or 5432),
                "-U",
                database["USER"],
                "-d",
                "postgres",
                "-v",
                f"owner={owner}",
                "-v",
                f"app={app}",
                "-v",
                f"database={dbname}",
                "-f",
                str(ROOT / "deploy" / "roles.sql"),
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "PGPASSWORD": database["PASSWORD"] or ""},
        )
        env = {
            "DATABASE_URL": role_url(app, dbname),
            "DATABASE_OWNER_URL": role_url(owner, dbname),
            "CELERY_TASK_ALWAYS_EAGER": "1",
        }
        assert f"Granted the service's role '{app}'" in manage("migrate", "--no-input", env=env)
        match_id = int(
            manage("shell", "-c", SERVICE_PLAYS, env={**env, "DATABASE_OWNER_URL": ""}).split()[-1]
        )

        service = Session(app, dbname)
        sessions.append(service)
        for table in EVENT_TABLES:
            assert service.run(f"SELECT count(*) FROM {table}")[0][0] > 0
            service.refused(f"TRUNCATE {table}", NO_PRIVILEGE)
            service.refused(f"TRUNCATE {table} CASCADE", NO_PRIVILEGE)
            service.refused(f"UPDATE {table} SET payload = '{{}}'", NO_PRIVILEGE)
            service.refused(f"DELETE FROM {table}", NO_PRIVILEGE)
            for trigger in EVENT_TRIGGERS[table]:
                service.refused(f"DROP TRIGGER {trigger} ON {table}", NO_PRIVILEGE)
                service.refused(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}", NO_PRIVILEGE)
            service.refused(f"ALTER TABLE {table} DISABLE TRIGGER ALL", NO_PRIVILEGE)
            service.refused(f"ALTER TABLE {table} ADD COLUMN forged text", NO_PRIVILEGE)
            service.refused(f"ALTER TABLE {table} OWNER TO {app}", NO_PRIVILEGE)
            service.refused(f"DROP TABLE {table} CASCADE", NO_PRIVILEGE)
        service.refused(f"TRUNCATE {Match._meta.db_table} CASCADE", NO_PRIVILEGE)
        # Nor can it switch the guards off some other way.
        service.refused("SET session_replication_role = replica", NO_PRIVILEGE)
        service.refused(
            "CREATE OR REPLACE FUNCTION snakepit_guard_waived(relation oid) RETURNS boolean "
            "LANGUAGE sql AS 'SELECT true'",
            NO_PRIVILEGE,
        )
        service.refused("CREATE TABLE public.forged (i int)", NO_PRIVILEGE)
        service.refused(f"UPDATE matches_match SET seed = 'x' WHERE id = {match_id}", REFUSED_BY_TRIGGER)
        # It can still add an event and read it back (rolled back, as every statement here).
        added = service.run(
            f"INSERT INTO {MatchEvent._meta.db_table} (match_id, seq, kind, seat, payload, "
            f"schema_version, created_at)"
            f" SELECT match_id, max(seq) + 1, 'forfeit', 0, '{{}}', 1, now() FROM {MatchEvent._meta.db_table}"
            f" WHERE match_id = {match_id} GROUP BY match_id RETURNING seq"
        )
        assert added and added[0][0] > 1

        # The owner is refused too, until it says so for its transaction.
        table_owner = Session(owner, dbname)
        sessions.append(table_owner)
        for table in EVENT_TABLES:
            table_owner.refused(f"TRUNCATE {table} CASCADE", REFUSED_BY_TRIGGER)
        table_owner.refused(
            f"UPDATE matches_match SET options = '{{}}' WHERE id = {match_id}", REFUSED_BY_TRIGGER
        )
        table_owner.refused(f"DELETE FROM matches_matchseat WHERE match_id = {match_id}", REFUSED_BY_TRIGGER)
        assert table_owner.run(
            "SET LOCAL snakepit.unsealed = 'on'",
            f"TRUNCATE {TournamentEvent._meta.db_table}",
            f"SELECT count(*) FROM {TournamentEvent._meta.db_table}",
        ) == [(0,)]
        assert service.run(f"SELECT count(*) FROM {TournamentEvent._meta.db_table}")[0][0] > 0  # rolled back

        # A table a later migration creates is the service's to use at once (default privileges).
        with table_owner.connection.cursor() as cursor:
            cursor.execute("CREATE TABLE later_table (i int)")
        table_owner.connection.commit()
        assert service.run("INSERT INTO later_table VALUES (1) RETURNING i") == [(1,)]
    finally:
        for session in sessions:
            session.close()
        with superuser_connect("postgres") as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
            admin.execute(f'DROP ROLE IF EXISTS "{app}"')
            admin.execute(f'DROP ROLE IF EXISTS "{owner}"')
