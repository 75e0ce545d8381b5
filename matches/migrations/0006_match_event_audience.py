"""Each event's audience on its row (matches/audience.py), so that a listing is one query and never a
replay of the log; filled here for the logs already written.

The log refuses UPDATE (migration 0002), so the audience could have gone to a side table instead. It
is a column, because the side table would cost every append a second insert and every listing a join,
and the guard is narrowed by exactly one case: an UPDATE that fills a NULL audience and changes
nothing else passes; any other UPDATE, a second write of an audience included, is still refused, as is
every DELETE. That keeps the promise the guard makes (no fact of a match is ever changed: the
audience is derived from the facts, written once) and lets this migration fill the old rows with the
guard in place rather than switched off. The service's role still has no UPDATE on the table at all
(`migrate` revokes it): only the owner, running migrations, can fill.

PostgreSQL: `match_event_append_only` calls a function of its own (the tournament log keeps
`snakepit_refuse_event_change`, which refuses everything). SQLite: `match_event_no_update` gets a WHEN.
The SQL is written out here, not imported: a migration is a snapshot. The audiences themselves come
from the engines, by the replay every listing did before (`matches.audience.audiences_replayed`).
"""

from django.db import migrations, models

TABLE = "matches_matchevent"
IDS_PER_UPDATE = 1000  # well under SQLite's limit on parameters in one statement
COLUMNS = (
    "id",
    "match_id",
    "seq",
    "kind",
    "seat",
    "payload",
    "schema_version",
    "actor_id",
    "idempotency_key",
    "created_at",
)

POSTGRES_UP = f"""
CREATE OR REPLACE FUNCTION snakepit_refuse_match_event_change() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.audience IS NULL AND NEW.audience IS NOT NULL
       AND to_jsonb(NEW) - 'audience' = to_jsonb(OLD) - 'audience' THEN
        RETURN NEW;  -- the audience filled once; every other column as it was
    END IF;
    RAISE EXCEPTION 'match events are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS match_event_append_only ON {TABLE};
CREATE TRIGGER match_event_append_only
    BEFORE UPDATE OR DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION snakepit_refuse_match_event_change();
"""
POSTGRES_DOWN = f"""
DROP TRIGGER IF EXISTS match_event_append_only ON {TABLE};
CREATE TRIGGER match_event_append_only
    BEFORE UPDATE OR DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION snakepit_refuse_event_change();
DROP FUNCTION IF EXISTS snakepit_refuse_match_event_change();
"""
_UNCHANGED = " AND ".join(f"NEW.{column} IS OLD.{column}" for column in COLUMNS)
SQLITE_UP = [
    "DROP TRIGGER IF EXISTS match_event_no_update;",
    f"""CREATE TRIGGER match_event_no_update BEFORE UPDATE ON {TABLE}
        WHEN NOT (OLD.audience IS NULL AND NEW.audience IS NOT NULL AND {_UNCHANGED})
        BEGIN SELECT RAISE(ABORT, 'match events are append-only: UPDATE refused'); END;""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS match_event_no_update;",
    f"""CREATE TRIGGER match_event_no_update BEFORE UPDATE ON {TABLE}
        BEGIN SELECT RAISE(ABORT, 'match events are append-only: UPDATE refused'); END;""",
]


def guard_narrow(apps, schema_editor):
    _run(schema_editor, POSTGRES_UP, SQLITE_UP)


def guard_restore(apps, schema_editor):
    _run(schema_editor, POSTGRES_DOWN, SQLITE_DOWN)


def _run(schema_editor, postgres: str, sqlite: list[str]) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(postgres, params=None)
    elif vendor == "sqlite":
        for statement in sqlite:
            schema_editor.execute(statement, params=None)
    else:
        raise RuntimeError(f"no append-only trigger for database vendor {vendor!r}")


def audiences_fill(apps, schema_editor):
    """Every event with no audience yet gets the one a replay of its match gives. Events past the first
    one an engine no longer accepts stay NULL, which the listing treats as unknown."""
    from matches.audience import audiences_replayed

    match_model = apps.get_model("matches", "Match")
    event_model = apps.get_model("matches", "MatchEvent")
    unfilled = event_model.objects.filter(audience__isnull=True).values_list("match_id", flat=True)
    for match in match_model.objects.filter(pk__in=unfilled.distinct()).order_by("pk"):
        rows = list(
            event_model.objects.filter(match=match)
            .order_by("seq")
            .values_list("id", "seq", "kind", "seat", "payload", "schema_version")
        )
        audiences = audiences_replayed(
            match.game,
            seats=match.seats.count(),
            options=match.options,
            rows=(row[1:] for row in rows),
        )
        ids_by_audience: dict[int, list[int]] = {}
        for event_id, seq, *_ in rows:
            if seq in audiences:
                ids_by_audience.setdefault(audiences[seq], []).append(event_id)
        for audience, ids in ids_by_audience.items():
            for start in range(0, len(ids), IDS_PER_UPDATE):
                part = ids[start : start + IDS_PER_UPDATE]
                event_model.objects.filter(pk__in=part, audience__isnull=True).update(audience=audience)


class Migration(migrations.Migration):
    dependencies = [("matches", "0005_match_void_entropy_correction")]

    operations = [
        migrations.AddField(
            model_name="matchevent",
            name="audience",
            field=models.IntegerField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(guard_narrow, guard_restore),
        migrations.RunPython(audiences_fill, migrations.RunPython.noop),
    ]
