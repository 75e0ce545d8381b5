"""The SQLite half of the append-only guarantee.

SQLite has no TRUNCATE, so the test runner empties tables with DELETE, which the append-only trigger
refuses. The trigger therefore asks `snakepit_event_log_sealed()`, a function this module registers
on every SQLite connection Django opens: it answers 1 (sealed) except inside `event_log_unsealed()`,
which only the test suite's table flush uses. Any other client of the file (the sqlite3 shell, a
script) has no such function, so its DELETE fails as well.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_unsealed = threading.Event()


@contextmanager
def event_log_unsealed() -> Iterator[None]:
    _unsealed.set()
    try:
        yield
    finally:
        _unsealed.clear()


def install_on_sqlite(sender, connection, **kwargs) -> None:
    if connection.vendor == "sqlite":
        connection.connection.create_function(
            "snakepit_event_log_sealed", 0, lambda: 0 if _unsealed.is_set() else 1, deterministic=False
        )
