# PostgreSQL 15 from the Debian binaries: one cluster per run dir, run as the postgres OS user when we are
# root, durability switched off (a throw-away dev/test store). Admin via the Unix socket (trust), the
# services via TCP with a per-run-dir password (scram-sha-256).
# shellcheck shell=bash

pg_data() { echo "$STACK_DIR/postgresql/data"; }
pg_socket_dir() { echo "$STACK_DIR/postgresql/socket"; }
pg_password_file() { echo "$STACK_DIR/postgresql/password"; }

pg_password() {
  local f; f=$(pg_password_file)
  [ -s "$f" ] || { head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$f"; chmod 600 "$f"; }
  cat "$f"
}

pg_chown() { if [ "$(id -u)" = 0 ]; then chown -R postgres: "$@"; fi; }

pg_admin() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$(pg_socket_dir)" -p "$PG_PORT" -U postgres "$@"; }

postgresql_start() {
  local dir=$STACK_DIR/postgresql data; data=$(pg_data)
  local log; log=$(store_log postgresql)
  mkdir -p "$dir" "$(pg_socket_dir)"; touch "$log"
  pg_chown "$dir" "$log"
  as_pg_user test -w "$dir" || die "the postgres user cannot write $dir: use a NEWSFEED_RUN it can reach"
  if [ ! -f "$data/PG_VERSION" ]; then
    as_pg_user "$PG_BIN/initdb" -D "$data" -U postgres -E UTF8 --no-locale \
      --auth-local=trust --auth-host=scram-sha-256 >> "$log" 2>&1 || die "initdb failed, see $log"
    echo "include_if_exists = 'newsfeed.conf'" >> "$data/postgresql.conf"
  fi
  # rewritten on every start: the port follows NEWSFEED_PORT_OFFSET
  cat > "$data/newsfeed.conf" <<CONF
listen_addresses = '$STACK_HOST'
port = $PG_PORT
unix_socket_directories = '$(pg_socket_dir)'
unix_socket_permissions = 0700
max_connections = 200
shared_buffers = 128MB
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = minimal
max_wal_senders = 0
checkpoint_timeout = 30min
password_encryption = scram-sha-256
logging_collector = off
log_min_messages = warning
CONF
  pg_hba > "$data/pg_hba.conf"
  pg_chown "$data/newsfeed.conf" "$data/pg_hba.conf"
  rm -f "$data/postmaster.pid"   # stale after a crash; we only get here when our postgres is not running
  # pg_ctl daemonizes the postmaster in its own session; -W: we wait for readiness ourselves
  as_pg_user "$PG_BIN/pg_ctl" -D "$data" -l "$log" -W start >/dev/null 9>&- || die "pg_ctl start failed, see $log"
  local pid=""
  for _ in $(seq 1 100); do
    pid=$(head -n1 "$data/postmaster.pid" 2>/dev/null || true)
    [ -n "$pid" ] && break
    sleep 0.1
  done
  [ -n "$pid" ] || die "postgres wrote no postmaster.pid, see $log"
  record_store_pid postgresql "$pid"
}

# pg_hba.conf, rewritten on every start: admin over the Unix socket (trust), passwords over TCP from loopback,
# STACK_HOST and the STACK_CLIENTS networks (initdb's file, plus the pods when the node address is used)
pg_hba() {
  local net
  echo "local all all trust"
  echo "host all all 127.0.0.1/32 scram-sha-256"
  echo "host all all ::1/128 scram-sha-256"
  [ "$STACK_HOST" = 127.0.0.1 ] || echo "host all all $STACK_HOST/32 scram-sha-256"
  for net in $STACK_CLIENTS; do echo "host all all $net scram-sha-256"; done
}

postgresql_ready() {
  "$PG_BIN/pg_isready" -q -h "$STACK_HOST" -p "$PG_PORT" && pg_admin -c 'SELECT 1' postgres
}

# Role + database owned by it, then the chart's schema file applied as that role over TCP (password auth).
postgresql_schema() {
  local password; password=$(pg_password)
  if [ "$(pg_admin -tA -c "SELECT 1 FROM pg_roles WHERE rolname = 'newsfeed'" postgres)" != 1 ]; then
    pg_admin -c "CREATE ROLE newsfeed LOGIN" postgres
  fi
  pg_admin -c "ALTER ROLE newsfeed WITH LOGIN PASSWORD '$password'" postgres
  if [ "$(pg_admin -tA -c "SELECT 1 FROM pg_database WHERE datname = 'newsfeed'" postgres)" != 1 ]; then
    pg_admin -c "CREATE DATABASE newsfeed OWNER newsfeed" postgres
  fi
  PGPASSWORD=$password PGOPTIONS='-c client_min_messages=warning' "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$STACK_HOST" -p "$PG_PORT" -U newsfeed \
    -d newsfeed -f "$SCHEMA_DIR/postgresql.sql"
}

# SIGINT = PostgreSQL's "fast" shutdown: ends sessions, checkpoints, exits.
postgresql_stop_signal() { echo INT; }

# postgres_exporter beside PostgreSQL, with none of its own collectors: only the queries of
# postgresql/cnpg-queries.yaml, named as CloudNativePG's default monitoring queries, so the `cnpg_*` series are those
# CloudNativePG's instance exporter serves in a cluster; on POSTGRESQL_EXPORTER_PORT. It logs in as the services do
# (the newsfeed role over TCP); the password reaches it as a file named in its environment, never on its command line.
PG_EXPORTER_COLLECTORS=(database locks replication replication_slot roles stat_bgwriter stat_database
  stat_user_tables statio_user_tables wal)

postgresql_exporter_start() {
  local dir=$STACK_DIR/postgresql pid c
  local bin=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/bin/postgres_exporter
  [ -x "$bin" ] || die "no postgres_exporter at $bin (bash ci/local/tools.sh exporters builds it)"
  local args=(--extend.query-path "$STACK_SRC/postgresql/cnpg-queries.yaml" --disable-default-metrics
    --disable-settings-metrics --web.listen-address "$STACK_HOST:$POSTGRESQL_EXPORTER_PORT" --log.level warn)
  for c in "${PG_EXPORTER_COLLECTORS[@]}"; do args+=("--no-collector.$c"); done
  pg_password >/dev/null   # the file exists
  # started in the store's dir: ci/local/leftovers.sh finds this run's processes by it
  pid=$(cd "$dir" && DATA_SOURCE_URI="$STACK_HOST:$PG_PORT/newsfeed?sslmode=disable" DATA_SOURCE_USER=newsfeed \
    DATA_SOURCE_PASS_FILE="$(pg_password_file)" spawn postgresql-exporter "$bin" "${args[@]}")
  record_store_pid postgresql-exporter "$pid"
}
postgresql_exporter_ready() {
  # the whole answer first: grep -q quitting at the match would cut curl off mid-answer (curl exits 23), and under
  # pipefail, as in the stack suite, that failed the check now and then
  local metrics
  metrics=$(curl -fsS "http://$STACK_HOST:$POSTGRESQL_EXPORTER_PORT/metrics") &&
    grep -q '^cnpg_collector_up{.*} 1$' <<< "$metrics"
}
