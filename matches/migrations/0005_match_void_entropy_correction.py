"""Voided matches; the store's own event kinds (entropy, void, correction); a match's entropy mode,
which joins the set-up the database keeps fixed on PostgreSQL (the guard of migration 0003, rewritten
with `entropy` among its columns; the SQL is written out: a migration is a snapshot)."""

from django.db import migrations, models

SETUP_COLUMNS = ("id", "game", "engine_version", "options", "seed", "seed_commitment")


def _setup_trigger(columns: tuple[str, ...]) -> str:
    changed = "\n          OR ".join(f"OLD.{column} IS DISTINCT FROM NEW.{column}" for column in columns)
    return f"""
DROP TRIGGER IF EXISTS match_setup_fixed ON matches_match;
CREATE TRIGGER match_setup_fixed
    BEFORE UPDATE OF {", ".join(columns)} ON matches_match
    FOR EACH ROW
    WHEN ({changed})
    EXECUTE FUNCTION snakepit_guard_refuse('a match''s set-up is fixed when it is created');
"""


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_setup_trigger((*SETUP_COLUMNS, "entropy")), params=None)


def uninstall(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_setup_trigger(SETUP_COLUMNS), params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0004_challenges"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="entropy",
            field=models.CharField(
                choices=[("server", "Server"), ("contributed", "Contributed")],
                default="server",
                editable=False,
                max_length=12,
            ),
        ),
        migrations.AlterField(
            model_name="match",
            name="status",
            field=models.CharField(
                choices=[("running", "Running"), ("finished", "Finished"), ("voided", "Voided")],
                db_index=True,
                default="running",
                max_length=12,
            ),
        ),
        migrations.AlterField(
            model_name="matchevent",
            name="kind",
            field=models.CharField(
                choices=[
                    ("action", "Action"),
                    ("chance", "Chance"),
                    ("forfeit", "Forfeit"),
                    ("entropy", "Entropy"),
                    ("void", "Void"),
                    ("correction", "Correction"),
                ],
                max_length=10,
            ),
        ),
        migrations.RunPython(install, uninstall),
    ]
