"""The web process's SQLite connections (snakepit/sqlite_pool): a request's closed connection serves
the next request's thread, unless it was closed inside a transaction or its file was made anew."""

from __future__ import annotations

import sqlite3
import threading

from django.db.utils import ConnectionHandler


def test_a_closed_connection_serves_the_next_request_and_only_a_clean_one(
    tmp_path, settings, django_db_blocker
):
    settings.SNAKEPIT_DB_POOL_SIZE = 2
    path = tmp_path / "web.sqlite3"
    handler = ConnectionHandler({"default": {"ENGINE": "snakepit.sqlite_pool", "NAME": str(path)}})

    def request(work=None) -> sqlite3.Connection:
        """One request in a thread of its own, as under ASGI: connect, work, close."""
        used = []

        def run() -> None:
            database = handler["default"]
            with database.cursor() as cursor:
                cursor.execute("SELECT 1")
                if work:
                    work(cursor)
            used.append(database.connection)
            database.close()

        with django_db_blocker.unblock():  # a database of this test's own, not the test database
            thread = threading.Thread(target=run)
            thread.start()
            thread.join()
        return used[0]

    first = request()
    assert request() is first and request() is first

    def left_in_a_transaction(cursor) -> None:
        cursor.execute("BEGIN")
        cursor.execute("CREATE TABLE half (x)")

    assert request(left_in_a_transaction) is first
    after = request()
    assert after is not first  # the one closed mid-transaction was closed, not kept
    tables = []
    request(lambda cursor: tables.extend(cursor.execute("SELECT name FROM sqlite_master").fetchall()))
    assert tables == []  # and its transaction rolled back
    # The same file made anew is another database: nothing kept for the old one is handed out.
    path.unlink()
    sqlite3.connect(path).close()
    assert request() is not after
