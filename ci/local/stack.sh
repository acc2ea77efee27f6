#!/usr/bin/env bash
# Local store stack: real PostgreSQL, Redis, Kafka, Cassandra and Solr processes on 127.0.0.1 (or NEWSFEED_STACK_HOST).
#
# Usage: ci/local/stack.sh up | down | status | env | start-store NAME | stop-store NAME | kill-store NAME | restart-store NAME
#   up       start every store that is not running (in parallel), wait until each really answers, create
#            the schemas from charts/newsfeed/files/schema, write $NEWSFEED_RUN/stack.env; a no-op when up
#   down     stop every store this run dir started, by PID (TERM/INT, KILL after a timeout)
#   status   table of the stores; exit 3 when any is not running
#   env      print the service environment (the contents of stack.env)
#   kill-store  kill -9 one store (no shutdown of its own: what a crash or an OOM kill leaves), then as stop-store
#   NAME     postgresql | redis | kafka | cassandra | solr
# Environment: NEWSFEED_RUN (default <repo>/.run; state in $NEWSFEED_RUN/stack), NEWSFEED_PORT_OFFSET
# (added to every port of docs/contracts.md), NEWSFEED_CACHE (default ~/.cache/newsfeed; jars in stores/),
# NEWSFEED_STACK_HOST (default 127.0.0.1: the address every store binds and stack.env names; the local node's
# address serves its pods), NEWSFEED_STACK_CLIENTS (networks PostgreSQL also admits, e.g. the pods' CIDR) and
# NEWSFEED_STACK_AUTH=true (Kafka, Cassandra and Solr ask for credentials; stack.env names their admins).
set -euo pipefail
# shellcheck source=ci/local/stack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/stack/lib.sh"
for store in "${STORES[@]}"; do
  # shellcheck source=/dev/null
  source "$STACK_SRC/stores/$store.sh"
done

STOP_TIMEOUT=${NEWSFEED_STACK_STOP_TIMEOUT:-30}

# Every port a store binds, so `up` refuses to start into a port someone else holds.
store_ports() {
  case $1 in
    kafka) echo "$KAFKA_PORT $KAFKA_CONTROLLER_PORT $KAFKA_JMX_EXPORTER_PORT $KAFKA_EXPORTER_PORT" ;;
    cassandra) echo "$CASSANDRA_PORT $CASSANDRA_STORAGE_PORT $CASSANDRA_JMX_PORT $CASSANDRA_METRICS_PORT" ;;
    redis) echo "$REDIS_PORT $REDIS_EXPORTER_PORT" ;;
    postgresql) echo "$PG_PORT $POSTGRESQL_EXPORTER_PORT" ;;
    *-exporter) ;;   # its port is among its store's
    *) store_port "$1" ;;
  esac
}

check_store_name() {
  local s
  for s in "${STORES[@]}"; do [ "$s" = "${1:-}" ] && return 0; done
  die "unknown store '${1:-}' (one of: ${STORES[*]})"
}

check_prerequisites() {
  local missing=()
  command -v java >/dev/null || missing+=(java)
  command -v mvn >/dev/null || missing+=(mvn)
  command -v curl >/dev/null || missing+=(curl)
  command -v redis-server >/dev/null || missing+=(redis-server)
  command -v redis-cli >/dev/null || missing+=(redis-cli)
  [ -x "$PG_BIN/postgres" ] || missing+=("$PG_BIN/postgres")
  [ ${#missing[@]} -eq 0 ] || die "missing: ${missing[*]} (ci/local/tools.sh apt installs the Debian packages)"
}

# start, wait for real readiness, create the schema; output of all three goes to the caller's stderr
bring_up() {
  local s=$1 started=$SECONDS
  local p
  # an exporter left running by a store that died on its own (a crash, an OOM kill) would hold its port
  stop_process "$s-exporter" TERM
  for p in $(store_ports "$s"); do
    port_open "$p" && die "$s: port $p is already taken by another process"
  done
  local logfile; logfile=$(store_log "$s")
  if [ -s "$logfile" ]; then mv "$logfile" "$logfile.prev"; fi   # keep the last run's log (e.g. a crash)
  : > "$logfile"
  "${s}_start"
  wait_until "$READY_TIMEOUT" "$s" "${s}_ready" || die "$s did not become ready"
  "${s}_schema" || die "$s schema creation failed"
  # an exporter of the store's metrics, a process of its own (<store>_exporter_start of stores/<store>.sh)
  if declare -F "${s}_exporter_start" >/dev/null; then
    "${s}_exporter_start"
    wait_until 30 "$s-exporter" "${s}_exporter_ready" || die "the exporter of $s did not start"
  fi
  log "$s ready in $((SECONDS - started))s (pid $(store_pid "$s"), port $(store_port "$s"))"
}

# stop_store NAME [SIGNAL]: the store's own stop signal by default, KILL for a crash; its exporter goes first
stop_store() {
  local s=$1
  stop_process "$s-exporter" TERM
  stop_process "$s" "${2:-$("${s}_stop_signal")}"
}

# stop_process NAME SIGNAL: a recorded process of the stack, KILL after STOP_TIMEOUT
stop_process() {
  local s=$1 pid
  pid=$(store_pid "$s") || { rm -f "$(pid_file "$s")"; return 0; }
  kill -s "$2" "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + STOP_TIMEOUT))
  while alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  if alive "$pid"; then
    log "$s (pid $pid) still running after ${STOP_TIMEOUT}s: KILL"
    kill -KILL "$pid" 2>/dev/null || true
    while alive "$pid"; do sleep 0.1; done
  fi
  # A JVM's main thread shows as a zombie while its other threads still exit (unmapping Cassandra's files takes a
  # while), and until the last one is gone its sockets still listen: a restart right away found its port taken.
  # Stopped means the ports are free too (bounded: a port someone else holds is bring_up's error to report).
  local p port_deadline=$((SECONDS + 10))
  for p in $(store_ports "$s"); do
    while port_open "$p" && [ $SECONDS -lt $port_deadline ]; do sleep 0.1; done
  done
  rm -f "$(pid_file "$s")"
  log "$s stopped (pid $pid)"
}

write_env() {
  local tmp=$STACK_ENV.tmp
  {
    echo "# written by ci/local/stack.sh up: NEWSFEED_RUN=$NEWSFEED_RUN NEWSFEED_PORT_OFFSET=$OFFSET NEWSFEED_STACK_HOST=$STACK_HOST"
    echo "PG_HOST=$STACK_HOST"
    echo "PG_PORT=$PG_PORT"
    echo "PG_DATABASE=newsfeed"
    echo "PG_USER=newsfeed"
    echo "PG_PASSWORD=$(pg_password)"
    echo "REDIS_URL=redis://$STACK_HOST:$REDIS_PORT"
    echo "CASSANDRA_CONTACT_POINTS=$STACK_HOST:$CASSANDRA_PORT"
    echo "CASSANDRA_LOCAL_DC=datacenter1"
    echo "CASSANDRA_KEYSPACE=$KEYSPACE"
    echo "KAFKA_BOOTSTRAP_SERVERS=$STACK_HOST:$KAFKA_PORT"
    echo "KAFKA_TOPIC=$KAFKA_TOPIC"
    echo "SOLR_URL=$(solr_url)"
    echo "SOLR_COLLECTION=$SOLR_CORE"
    # the stores' exporters (read by ci/local/prometheus.sh, not by the services)
    echo "REDIS_METRICS_ADDRESS=$STACK_HOST:$REDIS_EXPORTER_PORT"
    echo "KAFKA_METRICS_ADDRESS=$STACK_HOST:$KAFKA_JMX_EXPORTER_PORT"
    echo "KAFKA_LAG_METRICS_ADDRESS=$STACK_HOST:$KAFKA_EXPORTER_PORT"
    echo "POSTGRESQL_METRICS_ADDRESS=$STACK_HOST:$POSTGRESQL_EXPORTER_PORT"
    echo "CASSANDRA_METRICS_ADDRESS=$STACK_HOST:$CASSANDRA_METRICS_PORT"
    # with NEWSFEED_STACK_AUTH each store's admin credentials (<store>_admin_env of ci/local/stack/stores/<store>.sh)
    if stack_auth; then
      local s
      for s in "${STORES[@]}"; do ! declare -F "${s}_admin_env" >/dev/null || "${s}_admin_env"; done
    fi
  } > "$tmp"
  chmod 600 "$tmp"
  mv "$tmp" "$STACK_ENV"
}

print_table() {
  local s pid state all_up=0
  printf '%-11s %-8s %-8s %-6s %s\n' STORE STATE PID PORT LOG
  for s in "${STORES[@]}"; do
    if pid=$(store_pid "$s"); then state=running; else state=stopped; pid=-; all_up=3; fi
    printf '%-11s %-8s %-8s %-6s %s\n' "$s" "$state" "$pid" "$(store_port "$s")" "$(store_log "$s")"
  done
  return $all_up
}

# Brings up the given stores in parallel; fails if any of them fails.
bring_up_all() {
  local s failed=() pids=()
  for s in "$@"; do
    bring_up "$s" &
    pids+=($!)
  done
  local i
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed+=("${@:$((i + 1)):1}"); done
  [ ${#failed[@]} -eq 0 ] || { print_table >&2 || true; die "failed: ${failed[*]} (logs above; 'ci/local/stack.sh down' stops the rest)"; }
}

prepare() {
  check_prerequisites
  echo "$OFFSET" > "$STACK_DIR/port-offset"
  echo "$STACK_HOST" > "$STACK_DIR/host"
  echo "$STACK_CLIENTS" > "$STACK_DIR/clients"
  echo "$STACK_AUTH" > "$STACK_DIR/auth"
  "$STACK_SRC/fetch.sh"
}

# Stores keep their ports in their data (Cassandra's peers, Kafka's quorum), and a running stack's ports
# are what they are: one run dir, one offset.
check_offset() {
  local f=$STACK_DIR/port-offset
  if [ -f "$f" ] && [ "$(cat "$f")" != "$OFFSET" ]; then
    die "$STACK_DIR was set up with NEWSFEED_PORT_OFFSET=$(cat "$f"): use that offset or another NEWSFEED_RUN"
  fi
}

# Cassandra keeps its address in its data, Kafka in its quorum: one run dir, one host. The host must be an
# address of this machine, never a wildcard (the stores would listen on every interface).
check_host() {
  local f=$STACK_DIR/host
  case $STACK_HOST in
    0.0.0.0 | :: | '*' | '') die "NEWSFEED_STACK_HOST='$STACK_HOST': give one address of this machine, not a wildcard" ;;
  esac
  if [ "$STACK_HOST" != 127.0.0.1 ] && ! ip -o addr show | awk '{print $4}' | grep "^$STACK_HOST/" > /dev/null; then
    die "NEWSFEED_STACK_HOST=$STACK_HOST is no address of this machine (is the local node up? ci/local/cluster.sh env)"
  fi
  if [ -f "$f" ] && [ "$(cat "$f")" != "$STACK_HOST" ]; then
    die "$STACK_DIR was set up with NEWSFEED_STACK_HOST=$(cat "$f"): use that host or another NEWSFEED_RUN"
  fi
  # the stores keep their users in their data: a run dir stays with or without authentication
  case $STACK_AUTH in true | false) ;; *) die "NEWSFEED_STACK_AUTH='$STACK_AUTH': true or false" ;; esac
  if [ -f "$STACK_DIR/auth" ] && [ "$(cat "$STACK_DIR/auth")" != "$STACK_AUTH" ]; then
    die "$STACK_DIR was set up with NEWSFEED_STACK_AUTH=$(cat "$STACK_DIR/auth"): use that or another NEWSFEED_RUN"
  fi
}

# Serializes commands that start or stop stores on one run dir (two `up`s at once would race on ports).
lock_run_dir() {
  mkdir -p "$STACK_DIR/logs" "$STACK_DIR/pids"
  exec 9> "$STACK_DIR/.lock"
  flock 9
}

cmd_up() {
  local s todo=()
  for s in "${STORES[@]}"; do store_running "$s" || todo+=("$s"); done
  if [ ${#todo[@]} -gt 0 ]; then
    prepare
    local started=$SECONDS
    log "starting ${todo[*]} (run dir $STACK_DIR, port offset $OFFSET)"
    bring_up_all "${todo[@]}"
    log "stack up in $((SECONDS - started))s"
  else
    log "already running (run dir $STACK_DIR)"
  fi
  write_env
  print_table
  echo "env: $STACK_ENV"
}

cmd_down() {
  local s pids=()
  for s in "${STORES[@]}"; do stop_store "$s" & pids+=($!); done
  local rc=0 p
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return $rc
}

main() {
  check_offset
  case ${1:-} in
    up | start-store | restart-store) check_host ;;
  esac
  case ${1:-} in
    up | down | start-store | stop-store | kill-store | restart-store) lock_run_dir ;;
  esac
  case ${1:-} in
    up) cmd_up ;;
    down) cmd_down ;;
    status) print_table ;;
    env) [ -f "$STACK_ENV" ] || die "no $STACK_ENV: run ci/local/stack.sh up first"; grep -v '^#' "$STACK_ENV" ;;
    start-store) check_store_name "${2:-}"; store_running "$2" || { prepare; bring_up_all "$2"; }; write_env ;;
    stop-store) check_store_name "${2:-}"; stop_store "$2" ;;
    kill-store) check_store_name "${2:-}"; stop_store "$2" KILL ;;
    restart-store) check_store_name "${2:-}"; stop_store "$2"; prepare; bring_up_all "$2"; write_env ;;
    *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
}

main "$@"
