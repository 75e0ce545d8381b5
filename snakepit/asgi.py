"""The ASGI application the web server (uvicorn: snakepit/processes.py) serves: Django behind the
serving limits (snakepit/serving.py)."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "snakepit.settings")
# Under ASGI each request runs in a thread of its own, so a connection kept for CONN_MAX_AGE would
# be left behind with its thread: the web process takes its connections from a pool instead
# (SNAKEPIT_DB_POOL_SIZE, unless set; 0 connects per request), as Django advises for ASGI: psycopg's
# on PostgreSQL, where a new connection took 13 ms on loopback, more than most requests' own work, and
# snakepit/sqlite_pool on SQLite (about 1 ms). Its size, twice SNAKEPIT_WEB_THREADS, is the bound
# the process held anyway: its requests inside Django and its event streams' reads.
os.environ.setdefault("SNAKEPIT_DB_CONN_MAX_AGE", "0")
os.environ.setdefault("SNAKEPIT_DB_POOL_SIZE", "web")
# What django.core.asgi.get_asgi_application does, with the handler that serves streams in the loop.
django.setup(set_prefix=False)

from snakepit.checks import refuse_a_weak_secret_key  # noqa: E402 - settings are loaded only now
from snakepit.serving import ServingLimits, StreamsInTheLoop  # noqa: E402

refuse_a_weak_secret_key()
application = ServingLimits(StreamsInTheLoop())
