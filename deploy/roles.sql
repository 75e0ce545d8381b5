-- Snakepit's two PostgreSQL roles and its database. Run once, as a superuser, with psql:
--
--   psql -h HOST -U postgres -f deploy/roles.sql \
--        -v owner=snakepit_owner -v app=snakepit_app -v database=snakepit
--   psql -h HOST -U postgres -c '\password snakepit_owner' -c '\password snakepit_app'
--
-- (the three -v are optional: these are the defaults; psql's \password hashes the password before
-- sending it, so it is never in a log or in shell history).
--
-- The owner owns the database, its schema and every table: it runs `manage.py migrate` and nothing
-- else (DATABASE_OWNER_URL). The service's role (DATABASE_URL) owns nothing, so it cannot ALTER or
-- DROP a table nor drop or disable a trigger; `migrate`, run with DATABASE_OWNER_URL, grants it what
-- it needs after every migration (snakepit/management/commands/migrate.py): SELECT and INSERT on the
-- event logs and the seats, SELECT, INSERT, UPDATE and DELETE elsewhere, never TRUNCATE.
-- Neither role is a superuser nor a member of the other: a superuser gets past every trigger.

\set ON_ERROR_STOP on
\if :{?owner}
\else
    \set owner snakepit_owner
\endif
\if :{?app}
\else
    \set app snakepit_app
\endif
\if :{?database}
\else
    \set database snakepit
\endif

CREATE ROLE :"owner" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
CREATE ROLE :"app" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
CREATE DATABASE :"database" OWNER :"owner";
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"database" TO :"app";

\connect :"database"
-- Only the owner creates objects in the schema; the service may only use what is there.
ALTER SCHEMA public OWNER TO :"owner";
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"app";
-- Tables and sequences the owner creates later (every migration) are the service's to use at once;
-- `migrate` then takes UPDATE and DELETE back on the append-only tables.
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public
    GRANT USAGE, SELECT ON SEQUENCES TO :"app";
