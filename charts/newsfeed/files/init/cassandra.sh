#!/bin/sh
# cassandra.sh check|apply: can cqlsh log in / create the keyspace and tables (idempotent); with service roles, as the
# superuser, also give each service's role its password and SELECT, MODIFY on the keyspace, nothing more
# (docs/kubernetes.md, "Store credentials").
# Environment: CASSANDRA_CONTACT_POINTS (host:port,...; the first is used), optional CASSANDRA_USERNAME and
# CASSANDRA_PASSWORD; CASSANDRA_KEYSPACE and {OUTBOUND,INBOUND}_{ROLE,PASSWORD} for the service roles (each optional).
# cqlsh keeps its history under $HOME (an emptyDir).
set -eu
umask 077
tmp=${TMPDIR:-/tmp}
first=${CASSANDRA_CONTACT_POINTS%%,*}
host=${first%:*}
port=${first##*:}
[ "$port" != "$first" ] || port=9042
cql() {
  if [ -n "${CASSANDRA_USERNAME:-}" ]; then
    cqlsh "$host" "$port" -u "$CASSANDRA_USERNAME" -p "$CASSANDRA_PASSWORD" --request-timeout=120 "$@"
  else
    cqlsh "$host" "$port" --request-timeout=120 "$@"
  fi
}

# role NAME PASSWORD: CQL that makes the role (or resets it: a rotated Secret takes effect) a login without superuser
# rights, allowed to read and write the keyspace's tables; the password is a CQL string literal (quotes doubled)
role() {
  case $1 in
    '' | *[!a-z0-9_]*) echo "cassandra.sh: role name '$1' must be lower case letters, digits and _" >&2; exit 2 ;;
  esac
  literal=$(printf '%s' "$2" | sed "s/'/''/g")
  printf "CREATE ROLE IF NOT EXISTS %s WITH PASSWORD = '%s' AND LOGIN = true AND SUPERUSER = false;\n" "$1" "$literal"
  printf "ALTER ROLE %s WITH PASSWORD = '%s' AND LOGIN = true AND SUPERUSER = false;\n" "$1" "$literal"
  printf 'GRANT SELECT ON KEYSPACE %s TO %s;\nGRANT MODIFY ON KEYSPACE %s TO %s;\n' \
    "$CASSANDRA_KEYSPACE" "$1" "$CASSANDRA_KEYSPACE" "$1"
}

# the statements go through a file only this user can read, so no password is on a command line
service_roles() {
  : > "$tmp/roles.cql"
  [ -z "${OUTBOUND_ROLE:-}" ] || role "$OUTBOUND_ROLE" "$OUTBOUND_PASSWORD" >> "$tmp/roles.cql"
  [ -z "${INBOUND_ROLE:-}" ] || role "$INBOUND_ROLE" "$INBOUND_PASSWORD" >> "$tmp/roles.cql"
  if [ -s "$tmp/roles.cql" ]; then
    cql -f "$tmp/roles.cql"
    echo "cassandra roles: ${OUTBOUND_ROLE:-} ${INBOUND_ROLE:-} may SELECT and MODIFY in $CASSANDRA_KEYSPACE"
  fi
  rm -f "$tmp/roles.cql"
}

case "$1" in
  check) cql -e 'SELECT release_version FROM system.local' ;;
  apply)
    cql -f /init/cassandra-init.cql && echo "cassandra schema applied"
    service_roles
    ;;
  *) echo "usage: $0 check|apply" >&2; exit 2 ;;
esac
