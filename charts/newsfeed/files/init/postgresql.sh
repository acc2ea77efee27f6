#!/bin/sh
# postgresql.sh check|apply: is the server accepting connections / create the tables (idempotent).
# Environment: PGHOST PGPORT PGDATABASE PGUSER PGPASSWORD (libpq).
set -eu
case "$1" in
  check) pg_isready -h "$PGHOST" -p "$PGPORT" -d "$PGDATABASE" ;;
  apply) psql -v ON_ERROR_STOP=1 -X -q -f /init/postgresql.sql && echo "postgresql schema applied to $PGDATABASE" ;;
  *) echo "usage: $0 check|apply" >&2; exit 2 ;;
esac
