#!/bin/sh
# First start of the Compose PostgreSQL only (docker-entrypoint-initdb.d): Snakepit's two roles and
# its database from roles.sql, then their passwords from the environment (never on a command line).
set -eu
psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres -f /snakepit/roles.sql
psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres \
     -v owner_password="$SNAKEPIT_OWNER_PASSWORD" -v app_password="$SNAKEPIT_APP_PASSWORD" <<'SQL'
ALTER ROLE snakepit_owner PASSWORD :'owner_password';
ALTER ROLE snakepit_app PASSWORD :'app_password';
SQL
