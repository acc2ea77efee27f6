#!/bin/sh
# cassandra.sh check|apply: can cqlsh log in / create the keyspace and tables (idempotent).
# Environment: CASSANDRA_CONTACT_POINTS (host:port,...; the first is used), optional CASSANDRA_USERNAME and
# CASSANDRA_PASSWORD. cqlsh keeps its history under $HOME (an emptyDir).
set -eu
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
case "$1" in
  check) cql -e 'SELECT release_version FROM system.local' ;;
  apply) cql -f /init/cassandra-init.cql && echo "cassandra schema applied" ;;
  *) echo "usage: $0 check|apply" >&2; exit 2 ;;
esac
