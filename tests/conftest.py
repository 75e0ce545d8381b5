"""Shared fixtures. With CI=true the suite must run on the real PostgreSQL and Redis: if either is
missing the session stops with a failure (never a skip). Without CI it runs on the embedded
defaults (SQLite, local-memory cache), so a laptop with neither passes."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings as hypothesis_settings

from tests.games import register_test_games

# Before any test module lists the games (they parametrise over `game_keys()` as they are imported),
# and only here: the test-only games are never registered by anything the service runs.
register_test_games()

# CI gets the same examples every run (a red CI is reproducible, never a lucky draw) and no timing
# deadline on a loaded machine; on a laptop hypothesis keeps exploring new examples.
hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
hypothesis_settings.register_profile("dev", deadline=None)


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes", "on"}


def pytest_configure(config):
    hypothesis_settings.load_profile("ci" if _ci() else "dev")


def pytest_sessionstart(session):
    if not _ci():
        return
    problems = []
    try:
        import psycopg
        from django.conf import settings

        database = settings.DATABASES["default"]
        if "postgresql" not in database["ENGINE"]:
            problems.append(f"CI=true but the database is {database['ENGINE']}, not PostgreSQL")
        else:
            psycopg.connect(
                host=database["HOST"],
                port=database["PORT"] or 5432,
                user=database["USER"],
                password=database["PASSWORD"] or None,
                dbname=database["NAME"],
                connect_timeout=5,
            ).close()
    except Exception as error:  # noqa: BLE001 - any failure to reach it is the message
        problems.append(f"CI=true but PostgreSQL is unreachable: {error}")
    try:
        import redis
        from django.conf import settings

        if not settings.REDIS_URL:
            problems.append("CI=true but REDIS_URL is empty")
        else:
            redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=5).ping()
    except Exception as error:  # noqa: BLE001
        problems.append(f"CI=true but Redis is unreachable: {error}")
    if problems:
        pytest.exit("\n".join(problems), returncode=3)


@pytest.fixture(autouse=True)
def ban_lists_forgotten():
    """The ban lists in effect are cached (in Redis under CI) beyond a test's rolled-back transaction."""
    yield
    from decks.selectors import ban_list_cache_clear
    from engines.ragnguns import load_formats

    for key in load_formats():
        ban_list_cache_clear(key)


@pytest.fixture(autouse=True)
def reads_forgotten():
    """The public reads kept per version (core/read_cache.py) outlive a test's rolled-back
    transaction, and the next test's rows come back with the same ids and versions."""
    yield
    from core.read_cache import read_caches_clear

    read_caches_clear()


@pytest.fixture(autouse=True)
def generous_rates(settings):
    """Tests send requests faster than any person would; tests/api/test_limits.py sets real rates."""
    settings.SNAKEPIT_RATES = {scope: "1000000/min" for scope in settings.SNAKEPIT_RATES}


@pytest.fixture
def users(db, django_user_model):
    """Three players and their API clients' credentials."""
    return {
        name: django_user_model.objects.create_user(name, password=f"{name}-password")
        for name in ("alice", "bob", "carol")
    }


@pytest.fixture
def client_for():
    from rest_framework.test import APIClient

    def make(user=None):
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return make


@pytest.fixture
def eager_celery(settings):
    """Celery tasks run in the calling process (on commit, with django_capture_on_commit_callbacks)."""
    from snakepit.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture(scope="session", autouse=True)
def _flush_may_empty_the_event_log():
    """Tests on a real transaction (live server, threads) end with a table flush; on SQLite that is a
    DELETE, which the append-only trigger would refuse. Only that flush is let through."""
    from django.conf import settings

    if not settings.configured:  # engine-only runs without Django
        yield
        return
    from django.test import TransactionTestCase

    from matches.event_log_guard import event_log_unsealed

    original = TransactionTestCase._fixture_teardown

    def teardown(self):
        with event_log_unsealed():
            original(self)

    TransactionTestCase._fixture_teardown = teardown
    yield
    TransactionTestCase._fixture_teardown = original


@pytest.fixture(autouse=True)
def chance_from_the_seed_alone(settings):
    """Matches with people at the table take entropy from each seat by default (issue #23): a client
    commits and reveals its part before the first chance event. Tests of other features play such
    matches without those two steps, so they get chance from the seed alone, as before; the tests of
    the feature (tests/matches/test_entropy.py, tests/api/test_fairness*.py) switch the default on."""
    settings.SNAKEPIT_CONTRIBUTED_ENTROPY = False


@pytest.fixture
def root_worker():
    """Uploaded bots' fence gives each bot a fresh user id, which needs a root worker: a skip on a
    laptop, a failure under CI=true (CI runs as root), never a silent skip there."""
    import os

    from tests.support import unavailable

    if os.geteuid() != 0:
        unavailable("the fresh-user-id fence needs a root worker")
