#!/usr/bin/env bash
# Suite "lifecycle": the README's local commands run as a user runs them (`make ...` from the repository root), in
# a run dir and port offset of its own: every up target, up twice, a request through the gateway, each down
# target stopping only its own part (twice), a short `KEEP_RUNNING=1 TRACING=1 make demo` that leaves the single API
# up, its traces in the local Jaeger and Solr's own metrics in its Prometheus,
# `make clean` after a store and a service were killed with SIGKILL, `make clean` twice, and a `make clean` that
# must refuse (and remove nothing) while a process of the run dir or a port of its offset is still there.
# Usage: ci/tests/lifecycle.sh   (NEWSFEED_PORT_OFFSET defaults to 1100)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-1100}
O=$NEWSFEED_PORT_OFFSET
NEWSFEED_RUN=$(mktemp -d /tmp/newsfeed-lifecycle.XXXXXX)
export NEWSFEED_RUN
# a user's make has no shared stack: its demo and services use this run's stores, never the test runner's
unset NEWSFEED_STACK_ENV
chmod 755 "$NEWSFEED_RUN"   # PostgreSQL runs as the postgres user and must reach its data dir
OUT=$(mktemp -d /tmp/newsfeed-lifecycle-out.XXXXXX)
GATEWAY=http://127.0.0.1:$((18080 + O))
PROMETHEUS=http://127.0.0.1:$((19090 + O))
SERVICE_PORTS=($((18081 + O)) $((18082 + O)) $((18083 + O)) $((18084 + O)))
passed=0 failed=0 survivors=()

cleanup() {
  local p
  for p in "${survivors[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  # whatever a failed check left: the suite never leaves processes behind
  [ -d "$NEWSFEED_RUN" ] && { bash ci/local/clean.sh > "$OUT/final-clean.log" 2>&1 || cat "$OUT/final-clean.log"; }
  if [ "$failed" -eq 0 ]; then rm -rf "$OUT"; else echo "kept $OUT (every step's output)" >&2; fi
}
trap cleanup EXIT

step=0
# check NAME CMD...: one counted test; its output goes to a numbered log, shown on failure
check() {
  local name=$1; shift
  step=$((step + 1))
  local log; log=$OUT/$(printf '%02d' "$step")-$(echo "$name" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-80).log
  if "$@" > "$log" 2>&1; then
    passed=$((passed + 1)); echo "ok - $name"
  else
    failed=$((failed + 1)); echo "FAIL - $name"; tail -n 30 "$log" | sed 's/^/    /'
  fi
}
last_log() { ls "$OUT"/[0-9]*.log | tail -n 1; }

listening() { ss -Hltn "sport = :$1" | grep . > /dev/null; }
none_listening() { local p; for p in "$@"; do listening "$p" && { echo "port $p still listening"; return 1; }; done; return 0; }
all_listening() { local p; for p in "$@"; do listening "$p" || { echo "port $p not listening"; return 1; }; done; return 0; }
services_answer() { local p; for p in "${SERVICE_PORTS[@]}"; do curl -sf -m 5 -o /dev/null "http://127.0.0.1:$p/health/ready" || return 1; done; }
stores_up() { NEWSFEED_RUN=$NEWSFEED_RUN bash ci/local/stack.sh status; }
prometheus_ready() { curl -sf -m 5 -o /dev/null "$PROMETHEUS/-/ready"; }
prometheus_down() { ! curl -s -m 2 -o /dev/null "$PROMETHEUS/-/ready"; }

# twice TARGET: `make TARGET` run twice; both succeed and the second says it had nothing to start or stop
twice() {
  make "$1" || return 1
  local second; second=$(make "$1" 2>&1) || { echo "$second"; return 1; }
  echo "$second"
  case $1 in
    *-up) grep -q "already running" <<< "$second" ;;
    *) return 0 ;;
  esac
}

# a participant created through the gateway is read back through it (the classic single API)
api_round_trip() {
  local body id
  body=$(curl -sf -m 10 -H 'Content-Type: application/json' -d '{"name":"lifecycle"}' "$GATEWAY/participant") || return 1
  id=$(jq -r '.id' <<< "$body")
  [ -n "$id" ] && [ "$id" != null ] || { echo "no id in $body"; return 1; }
  curl -sf -m 10 "$GATEWAY/participant/$id" | jq -e '.name == "lifecycle"'
}

# every target with a `## ` description is listed by `make help`, the README's way to find them
help_lists_targets() {
  local out t; out=$(make help) || return 1
  echo "$out"
  for t in $(grep -oE '^[a-z-]+:.*## ' Makefile | cut -d: -f1); do grep -q "make $t " <<< "$out" || { echo "missing $t"; return 1; }; done
  grep -q "make clean " <<< "$out" && grep -q "make demo " <<< "$out"
}
check "make help lists every documented target" help_lists_targets

# ------------------------------------------------------------------ up
check "make stack-up, twice (already running)" twice stack-up
check "make control-plane-up, twice (already running)" twice control-plane-up
check "make services-up, twice (already running)" twice services-up
check "make gateway-up, twice (already running)" twice gateway-up
check "make prometheus-up, twice (already running)" twice prometheus-up
check "a participant created and read through the gateway" api_round_trip

# ------------------------------------------------------------------ each down stops only its own part
down_gateway() { twice gateway-down && none_listening $((18080 + O)) && services_answer && prometheus_ready && stores_up; }
down_prometheus() { twice prometheus-down && prometheus_down && services_answer && stores_up; }
down_services() { twice services-down && none_listening "${SERVICE_PORTS[@]}" && stores_up; }
down_control_plane() { twice control-plane-down && none_listening $((16443 + O)) $((12379 + O)) && stores_up; }
check "make gateway-down, twice: only the gateway stops" down_gateway
check "make prometheus-down, twice: only Prometheus stops" down_prometheus
check "make services-down, twice: only the services stop" down_services
check "make control-plane-down, twice: only the control plane stops" down_control_plane

# ------------------------------------------------------------------ the demo leaves a usable system
check "KEEP_RUNNING=1 TRACING=1 make demo (a short run)" env DEMO_DURATION=10s DEMO_RATE=5 KEEP_RUNNING=1 TRACING=1 \
  TRACING_SAMPLE_RATIO=1 make demo
demo_log=$(last_log)
demo_says() {
  grep -q "API: *$GATEWAY" "$demo_log" && grep -q "Prometheus: *$PROMETHEUS" "$demo_log" &&
    grep -q "report: .*per-minute.html" "$demo_log" && grep -q "stop everything with: .*make clean" "$demo_log"
}
check "the demo ends with the API, Prometheus, the report and the stop command" demo_says
demo_html() {  # the page the demo names: self-contained, with its Markdown's rows and every PNG beside it
  local page; page=$(sed -n 's/.*report: *\([^ ]*per-minute\.html\).*/\1/p' "$demo_log" | tail -n 1)
  [ -f "$page" ] && python3 ci/tests/observability/check_html_report.py "$(dirname "$page")"
}
check "the demo's HTML report is self-contained and holds the Markdown's rows" demo_html
demo_traces() {  # the trace it printed spans the four services; the Jaeger it names holds the run's posts
  local url
  grep -qE "^trace [0-9a-f]+: .* 4 services" "$demo_log" || { echo "no 4-service trace printed"; return 1; }
  url=$(sed -n 's/.*traces: *\(http[^ ]*\)\/api\/traces.*/\1/p' "$demo_log" | tail -n 1)
  [ "$url" = "http://127.0.0.1:$((16686 + O))" ] || { echo "traces line names '$url'"; return 1; }
  curl -sf "$url/api/services" | jq -e '.data | contains(["outbound", "inbound", "social-graph", "search"])'
}
check "with TRACING=1 the demo prints a post's trace across the four services and where Jaeger is" demo_traces
check "after the demo the gateway serves the API" api_round_trip
check "after the demo Prometheus is ready" prometheus_ready
prometheus_value_positive() {  # prometheus_value_positive QUERY: its first series' value is > 0
  curl -sf "$PROMETHEUS/api/v1/query" --data-urlencode "query=$1" | jq -e '(.data.result[0].value[1] | tonumber) > 0'
}
demo_stores() {  # the stores' own metrics, scraped since the demo started Prometheus after the stack
  python3 ci/tests/observability/check_panels_have_data.py --prometheus "$PROMETHEUS" \
    --title '^(PostgreSQL|Solr|Redis|Kafka|Cassandra)' --wait 30 charts/newsfeed/files/dashboards/newsfeed-stores.json &&
    prometheus_value_positive 'sum(solr_metrics_core_requests_total{handler="/update", type="requests"})' &&
    prometheus_value_positive 'sum(kafka_server_brokertopicmetrics_messagesinpersec_count{topic="outbound-posted"})' &&
    prometheus_value_positive 'count(kafka_consumergroup_current_offset_sum{consumergroup=~"newsfeed-(inbound|search)", topic="outbound-posted"} > 0) == 2' &&
    prometheus_value_positive 'count(kafka_consumergroup_members{consumergroup=~"newsfeed-(inbound|search)"} > 0) == 2' &&
    prometheus_value_positive 'sum(redis_commands_total{cmd=~"get|mget|zadd|zrange"})' &&
    prometheus_value_positive 'min(cnpg_collector_up{namespace="local", pod="postgresql-local-1"})' &&
    prometheus_value_positive 'sum(org_apache_cassandra_metrics_table_write_latency_count{namespace="local", table="inbound"})' &&
    demo_rows_counted
}
demo_rows_counted() {  # PostgreSQL's exporter counted at least the participant and friendship rows the demo wrote
  local rows _
  # shellcheck source=/dev/null
  rows=$(set -a; source "$NEWSFEED_RUN/stack.env"; PGPASSWORD=$PG_PASSWORD psql -X -tA -h "$PG_HOST" -p "$PG_PORT" \
    -U "$PG_USER" -d "$PG_DATABASE" -c 'SELECT (SELECT count(*) FROM participant) + (SELECT count(*) FROM friendship)')
  [ "${rows:-0}" -gt 0 ] || { echo "no rows counted by psql: '$rows'" >&2; return 1; }
  # a backend publishes its counts once idle (PostgreSQL 15: usually within 10 s) and Prometheus scrapes every 5 s,
  # so the demo's last rows may show up about 15 s after they were written
  local query="sum(cnpg_pg_stat_database_tup_inserted{datname=\"newsfeed\"})" answer=
  for _ in $(seq 40); do
    answer=$(curl -sS "$PROMETHEUS/api/v1/query" --data-urlencode "query=$query" 2>&1) &&
      jq -e --argjson rows "$rows" '(.data.result[0].value[1] // "0" | tonumber) >= $rows' <<< "$answer" >/dev/null &&
      return 0
    sleep 1
  done
  echo "$query stayed below the $rows rows psql counts; Prometheus answered: $answer" >&2
  return 1
}
check "the demo's Prometheus scrapes Solr and the exporters of PostgreSQL, Redis, Kafka (broker and consumer-group lag) \
and Cassandra: the stores dashboard's PostgreSQL, Solr, Redis, Kafka and Cassandra panels have data; the demo's rows, \
posts' index updates, events, both groups' commits and members, cache writes and fan-out rows counted" demo_stores

# ------------------------------------------------------------------ make clean after SIGKILLs
kill_store_and_service() {
  local pid
  read -r pid _ < "$NEWSFEED_RUN/stack/pids/redis.pid" && kill -9 "$pid" || return 1
  NEWSFEED_RUN=$NEWSFEED_RUN bash ci/local/services.sh kill inbound-1
}
check "kill -9 of Redis and of inbound-1" kill_store_and_service
check "make clean" make clean
check "nothing of the run is left (processes, ports) and its run dir is gone" \
  bash -c '! [ -e "$1" ] && bash ci/local/leftovers.sh "$1" "$2"' _ "$NEWSFEED_RUN" "$O"
second_clean() { local out; out=$(make clean 2>&1) || { echo "$out"; return 1; }; echo "$out"; grep -q "nothing to stop" <<< "$out"; }
check "make clean again says there is nothing to stop" second_clean

# ------------------------------------------------------------------ make clean refuses while something is left
mkdir -p "$NEWSFEED_RUN/stray"
(cd "$NEWSFEED_RUN/stray" && exec setsid sleep 300) < /dev/null > /dev/null 2>&1 &
survivors+=($!)
# SO_REUSEADDR: the port may still have TIME_WAIT connections of the Prometheus that listened there
python3 -c 'import socket as so, sys, time
s = so.socket(); s.setsockopt(so.SOL_SOCKET, so.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(300)' \
  $((19090 + O)) < /dev/null > /dev/null 2>&1 &
survivors+=($!)
refuses() {
  local out
  for _ in $(seq 50); do listening $((19090 + O)) && break; sleep 0.1; done
  listening $((19090 + O)) || { echo "the stray listener on port $((19090 + O)) did not start"; return 1; }
  if out=$(make clean 2>&1); then echo "$out"; echo "make clean succeeded"; return 1; fi
  echo "$out"
  grep -q "pid ${survivors[0]} " <<< "$out" && grep -q "port $((19090 + O))" <<< "$out" && [ -d "$NEWSFEED_RUN/stray" ]
}
check "make clean refuses, names the pid and the port, removes nothing" refuses
kill -9 "${survivors[@]}" 2>/dev/null; wait "${survivors[@]}" 2>/dev/null; survivors=()
check "once they are gone make clean removes the run dir" bash -c 'make clean && ! [ -e "$1" ]' _ "$NEWSFEED_RUN"

echo "lifecycle: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
