"""SQLite for the web process, with its connections kept for the next request.

Under ASGI each request runs in a thread of its own (snakepit/asgi.py), so Django opens a connection
per request. A new SQLite connection costs about a millisecond of CPU (the schema is read and parsed
on first use, and Django registers its functions) -- as much as a match's view itself. This backend
is Django's SQLite backend whose closed connections wait, at most SNAKEPIT_DB_POOL_SIZE of them, for
the next request of the process, as psycopg's pool does on PostgreSQL (settings.py uses it when that
size is set). A connection goes back only outside any transaction, and is handed out again only for
the same database file (path and inode: a file deleted and made anew is another database)."""

from __future__ import annotations

import os
import threading

from django.conf import settings
from django.db.backends.sqlite3 import base

_lock = threading.Lock()
_idle: dict[tuple[str, int], list] = {}


def _file_key(path: str) -> tuple[str, int] | None:
    try:
        return (str(path), os.stat(path).st_ino)
    except OSError:
        return None


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        key = _file_key(conn_params["database"])
        with _lock:
            idle = _idle.get(key) if key else None
            if idle:
                return idle.pop()
        return super().get_new_connection(conn_params)

    def _close(self):
        connection = self.connection
        key = _file_key(self.settings_dict["NAME"])
        if connection is None or key is None or connection.in_transaction or self.in_atomic_block:
            return super()._close()
        with _lock:
            idle = _idle.setdefault(key, [])
            if len(idle) < settings.SNAKEPIT_DB_POOL_SIZE:
                idle.append(connection)
                return None
        return super()._close()
