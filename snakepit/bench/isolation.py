"""The bench's own database: a throwaway database of the configured kind (PostgreSQL or SQLite),
created for the run and dropped after it, so the bench never reads or writes the real one."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from django.db import connection


@contextmanager
def throwaway_database() -> Iterator[None]:
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
