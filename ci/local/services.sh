#!/usr/bin/env bash
# The five services as local processes against the local stack (ci/local/stack.sh), one JVM per instance: the four of the
# classic REST API and edge (its GraphQL API, a client of the other four).
#
# Usage: ci/local/services.sh start | stop [INSTANCE] | status | urls | kill INSTANCE | restart INSTANCE
#   start     start every instance that is not running, wait until each answers /health/ready (200)
#   stop      SIGTERM every instance, or the one named (graceful: drain HTTP, commit consumers), KILL after a timeout
#   status    table of the instances; exit 3 when one is not running
#   urls      print SOCIAL_GRAPH_URL=... OUTBOUND_URL=... INBOUND_URL=... SEARCH_URL=... EDGE_URL=... (first instances)
#             (edge itself is given every instance of each service and spreads its calls over them; a start
#             after SERVICE_INSTANCES changed restarts a running edge with the new instances)
#   ports SVC print the port of every instance of a service, one a line (the gateway balances over them)
#   kill      kill -9 one instance, e.g. `kill inbound-2` (fault tests)
#   restart   stop and start one instance, e.g. `restart outbound-1`
#   dead-letters SVC list|replay   inbound's or search's dead-letter command against the local stack
#             (docs/reliability.md, "Poison events"): list prints one JSON object per dead-lettered record
# Environment: NEWSFEED_RUN (default <repo>/.run; state in $NEWSFEED_RUN/services), NEWSFEED_PORT_OFFSET,
#   NEWSFEED_STACK_ENV (default $NEWSFEED_RUN/stack.env: the stores' endpoints), SERVICE_INSTANCES (e.g.
#   "outbound=2 inbound=3"; default 1 each, at most 9), SERVICE_JAVA_OPTS (JVM flags of every instance),
#   SERVICE_ENV (NAME=VALUE pairs, space-separated, added to every instance's environment: docs/contracts.md),
#   SERVICE_ENV_DIR (a directory of <service>.env files, NAME=VALUE lines read after the stack's by that service's
#   instances only: e.g. each service's own store users against a stack with NEWSFEED_STACK_AUTH).
# Instance i of a service listens on its port of docs/contracts.md + 10*(i-1) (+ the offset).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
# shellcheck source=ci/local/stack/lib.sh
source ci/local/stack/lib.sh   # pid files (ci/local/process.sh), port_open, log helpers (NEWSFEED_RUN, OFFSET)

SERVICES=(social-graph outbound inbound search edge)
DIR=$NEWSFEED_RUN/services
ENV_FILE=${NEWSFEED_STACK_ENV:-$NEWSFEED_RUN/stack.env}
READY_TIMEOUT=${NEWSFEED_SERVICES_TIMEOUT:-120}
STOP_TIMEOUT=${NEWSFEED_SERVICES_STOP_TIMEOUT:-40}
# small heaps: five services share 2 cores and the machine with five stores
JAVA_OPTS_DEFAULT="-Xms64m -Xmx384m -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError"
read -r -a JAVA_OPTS <<< "${SERVICE_JAVA_OPTS:-$JAVA_OPTS_DEFAULT}"

log() { echo "[services $(date +%T)] $*" >&2; }

base_port() {
  case $1 in
    social-graph) echo $((18081 + OFFSET)) ;; outbound) echo $((18082 + OFFSET)) ;;
    inbound) echo $((18083 + OFFSET)) ;; search) echo $((18084 + OFFSET)) ;;
    edge) echo $((18085 + OFFSET)) ;;
    *) die "unknown service $1" ;;
  esac
}

instances_of() {
  local svc=$1 pair n=1
  for pair in ${SERVICE_INSTANCES:-}; do
    [ "${pair%%=*}" = "$svc" ] && n=${pair#*=}
  done
  [[ $n =~ ^[1-9]$ ]] || die "SERVICE_INSTANCES: $svc=$n must be 1..9"
  echo "$n"
}

instance_port() { local svc=${1%-*} i=${1##*-}; echo $(($(base_port "$svc") + 10 * (i - 1))); }
all_instances() {
  local svc i
  for svc in "${SERVICES[@]}"; do
    for ((i = 1; i <= $(instances_of "$svc"); i++)); do echo "$svc-$i"; done
  done
}
pid_path() { echo "$DIR/pids/$1.pid"; }
# the service URLs a running edge instance was started with
downstream_path() { echo "$DIR/pids/$1.downstream"; }

# Every instance of a service as a comma-separated URL list.
instance_urls() {
  local svc=$1 i out=""
  for ((i = 1; i <= $(instances_of "$svc"); i++)); do out+="${out:+,}http://127.0.0.1:$(instance_port "$svc-$i")"; done
  echo "$out"
}
# Edge's service URLs: every instance of each service (edge goes round robin over a list, as a Service balances
# its pods in a cluster), so a scaled service gets its share of edge's calls. The other services' clients
# (outbound's and inbound's existence checks on social-graph) keep one URL, the first instance.
edge_downstream() {
  echo "SOCIAL_GRAPH_URL=$(instance_urls social-graph)"
  echo "OUTBOUND_URL=$(instance_urls outbound)"
  echo "INBOUND_URL=$(instance_urls inbound)"
  echo "SEARCH_URL=$(instance_urls search)"
}
log_path() { echo "$DIR/logs/$1.log"; }

# Prints the PID when the recorded process (pid + start time, so a recycled PID never matches) still runs.
instance_pid() { recorded_pid "$(pid_path "$1")"; }

# The jar an instance runs: a copy named by content in the run dir, so a rebuild of services/ while instances run
# never swaps classes under a running JVM (it would fail on its next class load).
jar_of() {
  local jar=$ROOT/services/$1/target/$1.jar
  [ -f "$jar" ] || die "$jar is missing: build with 'make build'"
  local staged; staged=$DIR/jars/$1-$(sha256sum "$jar" | cut -c1-12).jar
  if [ ! -f "$staged" ]; then
    mkdir -p "$DIR/jars"; cp "$jar" "$staged.tmp"; mv "$staged.tmp" "$staged"
  fi
  echo "$staged"
}

start_instance() {
  local inst=$1 svc=${1%-*} port; port=$(instance_port "$1")
  if instance_pid "$inst" >/dev/null; then return 0; fi
  port_open "$port" && die "$inst: port $port is already taken by another process"
  local jar; jar=$(jar_of "$svc")
  local logf; logf=$(log_path "$inst")
  [ -s "$logf" ] && mv "$logf" "$logf.prev"
  # the stack's endpoints, then what differs per instance; `env -i` keeps the instance free of our shell
  local envs=()
  mapfile -t envs < <(grep -E '^[A-Z_]+=' "$ENV_FILE")
  envs+=(HTTP_HOST=127.0.0.1 "HTTP_PORT=$port")
  if [ "$svc" = edge ]; then
    edge_downstream > "$(downstream_path "$inst")"
    mapfile -t -O "${#envs[@]}" envs < "$(downstream_path "$inst")"
  else
    envs+=("SOCIAL_GRAPH_URL=http://127.0.0.1:$(base_port social-graph)")
  fi
  envs+=("PATH=$PATH" "HOME=$HOME" "LOG_LEVEL=${LOG_LEVEL:-INFO}")
  local extra
  for extra in ${SERVICE_ENV:-}; do envs+=("$extra"); done
  if [ -n "${SERVICE_ENV_DIR:-}" ] && [ -f "$SERVICE_ENV_DIR/$svc.env" ]; then
    mapfile -t -O "${#envs[@]}" envs < <(grep -E '^[A-Z_]+=' "$SERVICE_ENV_DIR/$svc.env")
  fi
  setsid env -i "${envs[@]}" java "${JAVA_OPTS[@]}" -jar "$jar" >> "$logf" 2>&1 < /dev/null &
  record_pid "$(pid_path "$inst")" $! || die "$inst exited at once: $(tail -n 20 "$logf")"
}

wait_ready() {
  local inst=$1 port deadline=$((SECONDS + READY_TIMEOUT)); port=$(instance_port "$1")
  until curl -sf -m 2 -o /dev/null "http://127.0.0.1:$port/health/ready"; do
    if ! instance_pid "$inst" >/dev/null; then
      log "$inst exited during start; last log lines:"; tail -n 30 "$(log_path "$inst")" >&2; return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      log "$inst not ready after ${READY_TIMEOUT}s: $(curl -s -m 2 "http://127.0.0.1:$port/health/ready")"
      tail -n 30 "$(log_path "$inst")" >&2; return 1
    fi
    sleep 0.5
  done
}

stop_instance() {
  local inst=$1 pid
  pid=$(instance_pid "$inst") || { rm -f "$(pid_path "$inst")"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + STOP_TIMEOUT))
  while alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  if alive "$pid"; then log "$inst (pid $pid) still running after ${STOP_TIMEOUT}s: KILL"; kill -KILL "$pid" 2>/dev/null || true; fi
  while alive "$pid"; do sleep 0.1; done
  rm -f "$(pid_path "$inst")" "$(downstream_path "$inst")"
  log "$inst stopped (pid $pid)"
}

check_instance() {
  local inst
  for inst in $(all_instances); do [ "$inst" = "${1:-}" ] && return 0; done
  die "unknown instance '${1:-}' (one of: $(all_instances | tr '\n' ' '))"
}

print_table() {
  local inst pid state rc=0
  printf '%-15s %-8s %-8s %-6s %s\n' INSTANCE STATE PID PORT LOG
  for inst in $(all_instances); do
    if pid=$(instance_pid "$inst"); then state=running; else state=stopped; pid=-; rc=3; fi
    printf '%-15s %-8s %-8s %-6s %s\n' "$inst" "$state" "$pid" "$(instance_port "$inst")" "$(log_path "$inst")"
  done
  return $rc
}

cmd_start() {
  [ -f "$ENV_FILE" ] || die "no $ENV_FILE: start the stores first (ci/local/stack.sh up) or set NEWSFEED_STACK_ENV"
  local inst started=$SECONDS todo=()
  for inst in $(all_instances); do
    # a running edge started with other instances of the services than SERVICE_INSTANCES gives now: restart it
    if [ "${inst%-*}" = edge ] && instance_pid "$inst" >/dev/null \
        && ! edge_downstream | cmp -s - "$(downstream_path "$inst")"; then
      log "$inst: the services' instances changed, restarting it with $(edge_downstream | tr '\n' ' ')"
      stop_instance "$inst"
    fi
    instance_pid "$inst" >/dev/null || todo+=("$inst")
  done
  if [ ${#todo[@]} -eq 0 ]; then log "already running"; print_table; return 0; fi
  # social-graph first: inbound reads friends from it
  for inst in "${todo[@]}"; do start_instance "$inst"; done
  local failed=()
  for inst in $(all_instances); do wait_ready "$inst" || failed+=("$inst"); done
  [ ${#failed[@]} -eq 0 ] || { print_table >&2 || true; die "not ready: ${failed[*]} (logs in $DIR/logs)"; }
  log "services ready in $((SECONDS - started))s"
  print_table
}

cmd_stop() {
  local inst pids=() rc=0 p
  # also instances started with another SERVICE_INSTANCES than now: whatever has a pid file
  for inst in $( (all_instances; cd "$DIR/pids" && ls -- *.pid 2>/dev/null | sed 's/\.pid$//') | sort -u); do
    stop_instance "$inst" & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return $rc
}

mkdir -p "$DIR/pids" "$DIR/logs"
case ${1:-} in
  start) cmd_start ;;
  stop) if [ -n "${2:-}" ]; then check_instance "$2"; stop_instance "$2"; else cmd_stop; fi ;;
  status) print_table ;;
  urls)
    echo "SOCIAL_GRAPH_URL=http://127.0.0.1:$(base_port social-graph)"
    echo "OUTBOUND_URL=http://127.0.0.1:$(base_port outbound)"
    echo "INBOUND_URL=http://127.0.0.1:$(base_port inbound)"
    echo "SEARCH_URL=http://127.0.0.1:$(base_port search)"
    echo "EDGE_URL=http://127.0.0.1:$(base_port edge)" ;;
  ports)
    base_port "${2:-}" >/dev/null
    for ((i = 1; i <= $(instances_of "$2"); i++)); do instance_port "$2-$i"; done ;;
  kill)
    check_instance "${2:-}"
    pid=$(instance_pid "$2") || die "$2 is not running"
    kill -KILL "$pid"; while alive "$pid"; do sleep 0.1; done; rm -f "$(pid_path "$2")"; log "$2 killed (pid $pid)" ;;
  restart) check_instance "${2:-}"; stop_instance "$2"; start_instance "$2"; wait_ready "$2" ;;
  dead-letters)
    case ${2:-} in inbound | search) ;; *) die "dead-letters: inbound or search, not '${2:-}'" ;; esac
    envs=()
    mapfile -t envs < <(grep -E '^[A-Z_]+=' "$ENV_FILE")
    # a short-lived JVM beside the instances: a small heap, the service's own jar and environment
    env -i "${envs[@]}" "PATH=$PATH" "HOME=$HOME" java -Xmx128m -jar "$(jar_of "$2")" dead-letters "${3:-}" ;;
  *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
