#!/bin/sh
# cassandra.sh check|apply: can cqlsh log in / create the keyspace and tables (idempotent); with service roles, as the
# superuser, also give each service's role its password and SELECT, MODIFY on the keyspace, nothing more
# (docs/kubernetes.md, "Store credentials").
# Environment: CASSANDRA_CONTACT_POINTS (host:port,...; the first is used), optional CASSANDRA_USERNAME and
# CASSANDRA_PASSWORD; CASSANDRA_KEYSPACE and {OUTBOUND,INBOUND}_{ROLE,PASSWORD} for the service roles (each optional);
# CASSANDRA_INIT_CQL (default /init/cassandra-init.cql, the ConfigMap's). cqlsh keeps its history under $HOME (an
# emptyDir).
set -eu
umask 077
tmp=${TMPDIR:-/tmp}
init_cql=${CASSANDRA_INIT_CQL:-/init/cassandra-init.cql}
trap 'rm -f "$tmp/cqlsh-credentials" "$tmp/roles.cql"' EXIT
first=${CASSANDRA_CONTACT_POINTS%%,*}
host=${first%:*}
port=${first##*:}
[ "$port" != "$first" ] || port=9042
# the login goes to cqlsh in a credentials file only this user can read (-p would put the password on a command line)
cql() {
  if [ -n "${CASSANDRA_USERNAME:-}" ]; then
    printf '[plain_text_auth]\nusername = %s\npassword = %s\n' "$CASSANDRA_USERNAME" "$CASSANDRA_PASSWORD" \
      > "$tmp/cqlsh-credentials"
    cqlsh "$host" "$port" --credentials "$tmp/cqlsh-credentials" --request-timeout=120 "$@"
  else
    cqlsh "$host" "$port" --request-timeout=120 "$@"
  fi
}

# role NAME PASSWORD: CQL that makes the role (or resets an existing one: a rotated Secret takes effect) a login without
# superuser rights, allowed to read and write the keyspace's tables; the password is a CQL string literal (quotes
# doubled). A new role is only created: Cassandra 5 refuses a role's second password change within 5 s, so CREATE then
# ALTER failed.
role() {
  case $1 in
    '' | *[!a-z0-9_]*) echo "cassandra.sh: role name '$1' must be lower case letters, digits and _" >&2; exit 2 ;;
  esac
  literal=$(printf '%s' "$2" | sed "s/'/''/g")
  if printf '%s\n' "$existing" | grep -x " *$1 *" > /dev/null; then
    printf "ALTER ROLE %s WITH PASSWORD = '%s' AND LOGIN = true AND SUPERUSER = false;\n" "$1" "$literal"
  else
    printf "CREATE ROLE IF NOT EXISTS %s WITH PASSWORD = '%s' AND LOGIN = true AND SUPERUSER = false;\n" "$1" "$literal"
  fi
  printf 'GRANT SELECT ON KEYSPACE %s TO %s;\nGRANT MODIFY ON KEYSPACE %s TO %s;\n' \
    "$CASSANDRA_KEYSPACE" "$1" "$CASSANDRA_KEYSPACE" "$1"
}

# the statements go through a file only this user can read, so no password is on a command line
service_roles() {
  [ -n "${OUTBOUND_ROLE:-}${INBOUND_ROLE:-}" ] || return 0
  existing=$(cql -e 'SELECT role FROM system_auth.roles')   # cqlsh prints one role name a row
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
    cql -f "$init_cql" && echo "cassandra schema applied"
    service_roles
    ;;
  *) echo "usage: $0 check|apply" >&2; exit 2 ;;
esac
