"""The database keeps deck versions as `DeckVersion.save` does: a version is never edited (only frozen,
and a freeze is never undone), and a frozen version is never deleted: a ladder or tournament entry,
or a match, depends on it.

On PostgreSQL the triggers call the guard functions matches/migrations/0003 installs (a superuser, or
the owner role that says so with `SET LOCAL snakepit.unsealed = 'on'`, gets past); on SQLite a
frozen version's DELETE asks `snakepit_event_log_sealed()` (matches/event_log_guard.py), so the test
runner's table flush still works. The SQL is written out here, not imported: a migration is a snapshot.
"""

from django.db import migrations

TABLE = "decks_deckversion"
CONTENT = (
    "id",
    "deck_id",
    "number",
    "format",
    "catalogue_version",
    "gunslinger",
    "cards",
    "source_text",
    "legal",
    "violations",
    "ban_list_version",
    "created_at",
)


def _changed(columns) -> str:
    return " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in columns)


def _distinct(columns) -> str:
    return " OR ".join(f"OLD.{column} IS DISTINCT FROM NEW.{column}" for column in columns)


POSTGRES_UP = f"""
CREATE TRIGGER deck_version_never_edited
    BEFORE UPDATE OF {", ".join(CONTENT)} ON {TABLE}
    FOR EACH ROW WHEN ({_distinct(CONTENT)})
    EXECUTE FUNCTION snakepit_guard_refuse('deck versions are never edited: save a new version');

CREATE TRIGGER deck_version_freeze_kept
    BEFORE UPDATE OF frozen_at ON {TABLE}
    FOR EACH ROW WHEN (OLD.frozen_at IS NOT NULL AND OLD.frozen_at IS DISTINCT FROM NEW.frozen_at)
    EXECUTE FUNCTION snakepit_guard_refuse('a frozen deck version stays frozen');

CREATE TRIGGER deck_version_frozen_kept
    BEFORE DELETE ON {TABLE}
    FOR EACH ROW WHEN (OLD.frozen_at IS NOT NULL)
    EXECUTE FUNCTION snakepit_guard_refuse('a frozen deck version is never deleted');
"""
POSTGRES_DOWN = f"""
DROP TRIGGER IF EXISTS deck_version_never_edited ON {TABLE};
DROP TRIGGER IF EXISTS deck_version_freeze_kept ON {TABLE};
DROP TRIGGER IF EXISTS deck_version_frozen_kept ON {TABLE};
"""
SQLITE_UP = [
    f"""CREATE TRIGGER deck_version_never_edited BEFORE UPDATE ON {TABLE}
        WHEN {_changed(CONTENT)}
        BEGIN SELECT RAISE(ABORT, 'deck versions are never edited: save a new version'); END;""",
    f"""CREATE TRIGGER deck_version_freeze_kept BEFORE UPDATE OF frozen_at ON {TABLE}
        WHEN OLD.frozen_at IS NOT NULL AND OLD.frozen_at IS NOT NEW.frozen_at
        BEGIN SELECT RAISE(ABORT, 'a frozen deck version stays frozen'); END;""",
    f"""CREATE TRIGGER deck_version_frozen_kept BEFORE DELETE ON {TABLE}
        WHEN OLD.frozen_at IS NOT NULL AND snakepit_event_log_sealed() != 0
        BEGIN SELECT RAISE(ABORT, 'a frozen deck version is never deleted'); END;""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS deck_version_never_edited;",
    "DROP TRIGGER IF EXISTS deck_version_freeze_kept;",
    "DROP TRIGGER IF EXISTS deck_version_frozen_kept;",
]


def install(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_UP, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_UP:
            schema_editor.execute(statement, params=None)
    else:
        raise RuntimeError(f"no deck version guard for database vendor {vendor!r}")


def uninstall(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for statement in [POSTGRES_DOWN] if vendor == "postgresql" else SQLITE_DOWN:
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("decks", "0002_ban_lists"), ("matches", "0003_match_log_sealed")]
    operations = [migrations.RunPython(install, uninstall)]
