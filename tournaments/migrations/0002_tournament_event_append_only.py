"""Tournament events are append-only, exactly like match events (matches/migrations/0002 installs the
PostgreSQL function this trigger calls; matches/event_log_guard.py the SQLite one)."""

from django.db import migrations

TABLE = "tournaments_tournamentevent"

POSTGRES_UP = f"""
CREATE TRIGGER tournament_event_append_only
    BEFORE UPDATE OR DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION snakepit_refuse_event_change();
"""
POSTGRES_DOWN = f"DROP TRIGGER IF EXISTS tournament_event_append_only ON {TABLE};"
SQLITE_UP = [
    f"""CREATE TRIGGER tournament_event_no_update BEFORE UPDATE ON {TABLE}
        BEGIN SELECT RAISE(ABORT, 'tournament events are append-only: UPDATE refused'); END;""",
    f"""CREATE TRIGGER tournament_event_no_delete BEFORE DELETE ON {TABLE}
        WHEN snakepit_event_log_sealed() != 0
        BEGIN SELECT RAISE(ABORT, 'tournament events are append-only: DELETE refused'); END;""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS tournament_event_no_update;",
    "DROP TRIGGER IF EXISTS tournament_event_no_delete;",
]


def install(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_UP, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_UP:
            schema_editor.execute(statement, params=None)
    else:
        raise RuntimeError(f"no append-only trigger for database vendor {vendor!r}")


def uninstall(apps, schema_editor):
    statements = [POSTGRES_DOWN] if schema_editor.connection.vendor == "postgresql" else SQLITE_DOWN
    for statement in statements:
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0001_initial"), ("matches", "0002_match_event_append_only")]
    operations = [migrations.RunPython(install, uninstall)]
