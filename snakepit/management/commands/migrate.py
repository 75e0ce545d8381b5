"""`migrate` as the tables' owner, then the service's grants (PostgreSQL, with DATABASE_OWNER_URL set).

The service connects (DATABASE_URL) as a role that owns nothing, so it can neither ALTER nor DROP a
table, nor drop or disable the triggers that keep the logs append-only (matches/migrations/0002 and
0003, tournaments/migrations/0002 and 0004). Only the owner can, and the owner only migrates. With
DATABASE_OWNER_URL set, this command therefore:

1. migrates DATABASE_URL's database as the owner: the owner URL gives the user, password, host and
   port, never the database, so a test database stays the test database;
2. grants DATABASE_URL's user (the service's role) what the service needs and nothing more, on every
   table there is, in one transaction: SELECT, INSERT, UPDATE and DELETE on ordinary tables; only
   SELECT and INSERT on the append-only ones (`APPEND_ONLY`); USAGE and SELECT on sequences; never
   TRUNCATE, REFERENCES or TRIGGER. The same grants become the owner's default privileges, so a table
   a later migration creates is usable at once, and every migrate applies them again (a new
   append-only table must join `APPEND_ONLY`).

It refuses to grant to a superuser or to a role that can act as the owner: either could undo the
guards. Without DATABASE_OWNER_URL, or for another database alias, it is Django's `migrate`.
"""

from __future__ import annotations

import dj_database_url
from django.conf import settings
from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import DEFAULT_DB_ALIAS, connections, transaction

OWNER_KEYS = ("USER", "PASSWORD", "HOST", "PORT", "OPTIONS")


def append_only_tables() -> list[str]:
    """The tables the service may read and add to, never change: the two event logs, and the seats,
    which are written once, with their match."""
    from matches.models import MatchEvent, MatchSeat
    from tournaments.models import TournamentEvent

    return [MatchEvent._meta.db_table, TournamentEvent._meta.db_table, MatchSeat._meta.db_table]


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def service_role_grant(connection, role: str) -> None:
    """Give `role` the service's privileges on the connection's current schema (run as the owner)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rolsuper, pg_has_role(%s, current_user, 'MEMBER'), current_user, current_schema()"
            " FROM pg_roles WHERE rolname = %s",
            [role, role],
        )
        row = cursor.fetchone()
        if row is None:
            raise CommandError(
                f"the service's role {role!r} (DATABASE_URL's user) does not exist: deploy/roles.sql"
            )
        superuser, acts_as_owner, owner, schema = row
        if superuser or acts_as_owner:
            raise CommandError(
                f"the service's role {role!r} is a superuser or can act as the owner {owner!r}: "
                f"it could drop "
                'or disable the triggers that keep the logs append-only (deploy/README.md, "Database roles")'
            )
        role, schema = quoted(role), quoted(schema)
        append_only = ", ".join(quoted(table) for table in append_only_tables())
        for statement in (
            f"GRANT USAGE ON SCHEMA {schema} TO {role}",
            f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {role}",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {role}",
            f"REVOKE UPDATE, DELETE ON {append_only} FROM {role}",
            f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {schema} FROM {role}",
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {role}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT, INSERT, UPDATE, DELETE "
            f"ON TABLES TO {role}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT USAGE, SELECT ON SEQUENCES TO {role}",
        ):
            cursor.execute(statement)


class Command(DjangoMigrate):
    help = DjangoMigrate.help + " With DATABASE_OWNER_URL set: as that owner, then grants the service's role."

    def handle(self, *args, **options):
        owner_url = getattr(settings, "DATABASE_OWNER_URL", "")
        alias = options["database"]
        if not owner_url or alias != DEFAULT_DB_ALIAS:
            return super().handle(*args, **options)
        connection = connections[alias]
        if connection.vendor != "postgresql":
            raise CommandError("DATABASE_OWNER_URL is for PostgreSQL; DATABASE_URL is another database")
        owner = dj_database_url.parse(owner_url)
        service = dict(connection.settings_dict)
        if owner["USER"] == service["USER"]:
            self.stderr.write(
                f"DATABASE_OWNER_URL and DATABASE_URL are both {owner['USER']!r}: "
                f"migrating without separate roles"
            )
            return super().handle(*args, **options)
        connection.close()
        # The owner's connection never joins the service's pool (OPTIONS["pool"]), if there is one.
        options_for_owner = {
            key: value for key, value in (service.get("OPTIONS") or {}).items() if key != "pool"
        }
        connection.settings_dict.update(
            USER=owner["USER"],
            PASSWORD=owner["PASSWORD"],
            HOST=owner["HOST"] or service["HOST"],
            PORT=owner["PORT"] or service["PORT"],
            OPTIONS={**options_for_owner, **(owner.get("OPTIONS") or {})},
        )
        try:
            super().handle(*args, **options)
            if not options["plan"] and not options["check_unapplied"]:
                with transaction.atomic(using=alias):
                    service_role_grant(connection, service["USER"])
                if options["verbosity"] >= 1:
                    self.stdout.write(
                        f"Granted the service's role {service['USER']!r} its privileges as {owner['USER']!r}."
                    )
        finally:
            connection.close()
            connection.settings_dict.update({key: service[key] for key in OWNER_KEYS})
