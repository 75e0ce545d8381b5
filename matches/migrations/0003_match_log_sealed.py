"""The database refuses TRUNCATE of match events, a change of a match's set-up and a change of its seats.

Migration 0002 refuses UPDATE and DELETE of an event, row by row. This one closes what is left:
- TRUNCATE of `matches_matchevent` (a statement-level trigger; TRUNCATE fires no row triggers), also
  when it arrives as the CASCADE of a TRUNCATE of `matches_match`;
- UPDATE of a match's `id`, `game`, `engine_version`, `options`, `seed` or `seed_commitment` to a new
  value: they are fixed when the match is created (`status`, `outcome`, `finished_at` stay writable:
  they are the log's projection, and `matches.store` is their only writer);
- UPDATE or DELETE of a seat, and INSERT of a seat into a match whose log has begun: seats are written
  once, by `matches.services.match_create`, in the transaction that creates the match and before its
  first event.

Who gets past (`snakepit_guard_waived`): a superuser, who can switch any trigger off anyway
(`ALTER TABLE … DISABLE TRIGGER`, `session_replication_role`), so the guard does not pretend to stop
one, and the test runner connects as one to empty tables with TRUNCATE between tests; and a member of
the table's owner role that says so first with `SET LOCAL snakepit.unsealed = 'on'` (for repairs by
hand; the owner could drop the trigger instead, so the waiver gives it nothing new, but a stray
TRUNCATE typed as the owner is still refused). The service connects as a role that owns nothing
(deploy/roles.sql), for which neither applies.

PostgreSQL only: SQLite has no TRUNCATE, and the test suite changes a seed on SQLite to prove that
`verify_matches` notices. The SQL is written out here, not imported: a migration is a snapshot.
"""

from django.db import migrations

POSTGRES_UP = """
CREATE OR REPLACE FUNCTION snakepit_guard_waived(relation oid) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user), false)
        OR (coalesce(current_setting('snakepit.unsealed', true), '') = 'on'
            AND pg_catalog.pg_has_role(
                current_user, (SELECT relowner FROM pg_catalog.pg_class WHERE oid = relation), 'USAGE'))
$$;

-- One trigger function for every guard; its argument says what the guard protects.
CREATE OR REPLACE FUNCTION snakepit_guard_refuse() RETURNS trigger AS $$
BEGIN
    IF snakepit_guard_waived(TG_RELID) THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '%: % of % refused', TG_ARGV[0], TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION snakepit_guard_refuse_late_seat() RETURNS trigger AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM matches_matchevent WHERE match_id = NEW.match_id)
       AND NOT snakepit_guard_waived(TG_RELID) THEN
        RAISE EXCEPTION 'seats are fixed when the match is created: match % has begun', NEW.match_id
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER match_event_no_truncate
    BEFORE TRUNCATE ON matches_matchevent
    FOR EACH STATEMENT EXECUTE FUNCTION snakepit_guard_refuse('match events are append-only');

CREATE TRIGGER match_setup_fixed
    BEFORE UPDATE OF id, game, engine_version, options, seed, seed_commitment ON matches_match
    FOR EACH ROW
    WHEN (OLD.id IS DISTINCT FROM NEW.id
          OR OLD.game IS DISTINCT FROM NEW.game
          OR OLD.engine_version IS DISTINCT FROM NEW.engine_version
          OR OLD.options IS DISTINCT FROM NEW.options
          OR OLD.seed IS DISTINCT FROM NEW.seed
          OR OLD.seed_commitment IS DISTINCT FROM NEW.seed_commitment)
    EXECUTE FUNCTION snakepit_guard_refuse('a match''s set-up is fixed when it is created');

CREATE TRIGGER match_seat_fixed
    BEFORE UPDATE OR DELETE ON matches_matchseat
    FOR EACH ROW EXECUTE FUNCTION snakepit_guard_refuse('seats are fixed when the match is created');

CREATE TRIGGER match_seat_not_late
    BEFORE INSERT ON matches_matchseat
    FOR EACH ROW EXECUTE FUNCTION snakepit_guard_refuse_late_seat();
"""
POSTGRES_DOWN = """
DROP TRIGGER IF EXISTS match_seat_not_late ON matches_matchseat;
DROP TRIGGER IF EXISTS match_seat_fixed ON matches_matchseat;
DROP TRIGGER IF EXISTS match_setup_fixed ON matches_match;
DROP TRIGGER IF EXISTS match_event_no_truncate ON matches_matchevent;
DROP FUNCTION IF EXISTS snakepit_guard_refuse_late_seat();
DROP FUNCTION IF EXISTS snakepit_guard_refuse();
DROP FUNCTION IF EXISTS snakepit_guard_waived(oid);
"""


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
    dependencies = [("matches", "0002_match_event_append_only")]
    operations = [migrations.RunPython(install, uninstall)]
