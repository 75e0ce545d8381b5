"""The database refuses to change or delete a match event, whoever asks: the ORM, raw SQL or a shell.

TRUNCATE is left alone on PostgreSQL: it is not a row change an application makes by accident, and the
test runner uses it to empty tables between tests. SQLite has no TRUNCATE: see matches/event_log_guard.py.
"""

from django.db import migrations

TABLE = "matches_matchevent"

POSTGRES_UP = f"""
CREATE OR REPLACE FUNCTION snakepit_refuse_event_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'match events are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER match_event_append_only
    BEFORE UPDATE OR DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION snakepit_refuse_event_change();
"""
POSTGRES_DOWN = f"""
DROP TRIGGER IF EXISTS match_event_append_only ON {TABLE};
DROP FUNCTION IF EXISTS snakepit_refuse_event_change();
"""
SQLITE_UP = [
    f"""CREATE TRIGGER match_event_no_update BEFORE UPDATE ON {TABLE}
        BEGIN SELECT RAISE(ABORT, 'match events are append-only: UPDATE refused'); END;""",
    # snakepit_event_log_sealed(): see matches/event_log_guard.py.
    f"""CREATE TRIGGER match_event_no_delete BEFORE DELETE ON {TABLE}
        WHEN snakepit_event_log_sealed() != 0
        BEGIN SELECT RAISE(ABORT, 'match events are append-only: DELETE refused'); END;""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS match_event_no_update;",
    "DROP TRIGGER IF EXISTS match_event_no_delete;",
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
    vendor = schema_editor.connection.vendor
    statements = [POSTGRES_DOWN] if vendor == "postgresql" else SQLITE_DOWN
    for statement in statements:
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("matches", "0001_initial")]
    operations = [migrations.RunPython(install, uninstall)]
