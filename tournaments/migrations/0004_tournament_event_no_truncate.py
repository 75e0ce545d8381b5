"""The database refuses TRUNCATE of tournament events, as it refuses UPDATE and DELETE (migration 0002).

A statement-level trigger (TRUNCATE fires no row triggers) calling `snakepit_guard_refuse`, which
matches/migrations/0003 installs and documents: a superuser and the table's owner after
`SET LOCAL snakepit.unsealed = 'on'` get past it, the service's role never. PostgreSQL only: SQLite
has no TRUNCATE.
"""

from django.db import migrations

POSTGRES_UP = """
CREATE TRIGGER tournament_event_no_truncate
    BEFORE TRUNCATE ON tournaments_tournamentevent
    FOR EACH STATEMENT EXECUTE FUNCTION snakepit_guard_refuse('tournament events are append-only');
"""
POSTGRES_DOWN = "DROP TRIGGER IF EXISTS tournament_event_no_truncate ON tournaments_tournamentevent;"


def install(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_UP, params=None)
    elif vendor != "sqlite":
        raise RuntimeError(f"no log guards for database vendor {vendor!r}")


def uninstall(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_DOWN, params=None)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0003_tournament_snapshot"), ("matches", "0003_match_log_sealed")]
    operations = [migrations.RunPython(install, uninstall)]
