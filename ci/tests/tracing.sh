#!/usr/bin/env bash
# Suite "tracing": the services traced into a real Jaeger (ci/local/jaeger.sh, started with `make jaeger-up` as a
# user does), on real stores.
#   (a) ci/tests/tracing/check_trace.py post: two posts by a participant with three friends; each one's trace holds
#       outbound, inbound, social-graph and search, with the parent links of the whole path (docs/observability.md#traces)
#   (b) probes and scrapes (/health/*, /metrics) start no trace
#   (c) ci/tests/tracing/check_exemplars.py: the local Prometheus (ci/local/prometheus.sh, exemplar storage on)
#       scrapes the services as OpenMetrics; every exemplar query of the dashboards returns trace ids Jaeger holds;
#       /metrics without Accept stays the classic text format; the recording rules still record
#   (d) `ci/local/jaeger.sh show` prints the post's trace as a tree across the four services
#   (e) outbound with TRACING_SAMPLE_RATIO=0: a post leaves no trace anywhere (the consumers follow its decision)
#   (f) bad tracing settings never stop a service: social-graph with TRACING_SAMPLE_RATIO=abc, then with an endpoint
#       nothing listens on, starts, serves, and says once why it runs untraced
#   (g) `make jaeger-up` twice, `make jaeger-down` twice: nothing of Jaeger is left
# Uses the stack named by NEWSFEED_STACK_ENV (ci/tests/run.sh shares one), else starts its own in a fresh run dir;
# services, Jaeger and Prometheus on NEWSFEED_PORT_OFFSET (default 1800). Last line: `tracing: N passed, N failed`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SUITE=tracing
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-1800}
O=$NEWSFEED_PORT_OFFSET
passed=0 failed=0 started_jaeger=false started_prometheus=false
log() { echo "[tracing $(date +%T)] $*" >&2; }
# shellcheck source=ci/tests/lib/maven.sh
source ci/tests/lib/maven.sh
# shellcheck source=ci/tests/lib/system.sh
source ci/tests/lib/system.sh
suite_run_dir tracing
OUT=$NEWSFEED_RUN/tracing
mkdir -p "$OUT"

cleanup() {
  local rc=$?
  if $started_prometheus; then bash ci/local/prometheus.sh stop >&2 || log "ci/local/prometheus.sh stop failed"; fi
  if $started_jaeger; then bash ci/local/jaeger.sh stop >&2 || log "ci/local/jaeger.sh stop failed"; fi
  system_cleanup "$rc"
}
trap cleanup EXIT
# shellcheck source=ci/tests/lib/counted.sh
source ci/tests/lib/counted.sh

check() {
  local name=$1; shift
  if "$@" > "$OUT/check.log" 2>&1; then
    echo "ok - $name"; passed=$((passed + 1))
  else
    echo "FAIL - $name"; sed 's/^/    /' "$OUT/check.log" | tail -n 20; failed=$((failed + 1))
  fi
}

started_jaeger=true
setup "make jaeger-up" make jaeger-up >&2
JAEGER_URL=$(bash ci/local/jaeger.sh url)
ENDPOINT=$(bash ci/local/jaeger.sh endpoint)
export JAEGER_URL
export SERVICE_ENV="TRACING_ENABLED=true TRACING_ENDPOINT=$ENDPOINT TRACING_SAMPLE_RATIO=1"
system_up
export PYTHONDONTWRITEBYTECODE=1

counted "the trace of a post" python3 ci/tests/tracing/check_trace.py post
counted "probes start no trace" python3 ci/tests/tracing/check_trace.py probes

started_prometheus=true
setup "ci/local/prometheus.sh start" bash ci/local/prometheus.sh start >&2
PROMETHEUS_URL=http://127.0.0.1:$((19090 + O)) counted "latency exemplars lead to traces" \
  python3 ci/tests/tracing/check_exemplars.py charts/newsfeed/files/dashboards/*.json
documented_exemplars() {  # the command of docs/observability.md#exemplars-from-a-latency-point-to-its-trace
  local out try
  # a request first, as the page says: an exemplar older than 70 s is left out (the checks above can take longer);
  # the client samples exemplars at a limited rate, so a request's own may be skipped: up to 3 requests, 2 s apart
  for try in 1 2 3; do
    curl -s -o /dev/null "$OUTBOUND_URL/participant/1/outbound" || return 1
    # the page read whole, then searched: grep -m3 on curl's pipe would cut curl short (SIGPIPE under pipefail)
    out=$(curl -s -H 'Accept: application/openmetrics-text' "$OUTBOUND_URL/metrics") &&
      out=$(grep -m3 'trace_id=' <<< "$out") && break
    echo "request $try: no exemplar"
    sleep 2
  done
  echo "$out"
  grep -qE '^newsfeed_.* # \{span_id="[0-9a-f]{16}",trace_id="[0-9a-f]{32}"\} [0-9.eE+-]+ [0-9.]+$' <<< "$out"
}
check "the documented curl of /metrics as OpenMetrics prints exemplars" documented_exemplars
setup "ci/local/prometheus.sh stop" bash ci/local/prometheus.sh stop >&2
started_prometheus=false

shows_tree() {
  local out
  out=$(bash ci/local/jaeger.sh show outbound 1 "POST /participant/:id/outbound") || { echo "$out"; return 1; }
  echo "$out"
  grep -qE "^trace [0-9a-f]+: .*, 4 services$" <<< "$out" &&
    grep -qE "^  +inbound +fan-out " <<< "$out" && grep -qE "^ +inbound +cassandra insert inbound .*newsfeed.fanout.rows=" <<< "$out"
}
check "ci/local/jaeger.sh show prints a post's trace as a tree across the four services" shows_tree

# (e) one instance restarted with other tracing settings; every later check restores nothing but what it changed
restart_with() {  # restart_with INSTANCE EXTRA_ENV...: the instance again, with these settings after the suite's
  local instance=$1; shift
  SERVICE_ENV="$SERVICE_ENV $*" bash ci/local/services.sh restart "$instance" >&2
}
setup "outbound restarted with TRACING_SAMPLE_RATIO=0" restart_with outbound-1 TRACING_SAMPLE_RATIO=0
counted "a post outbound does not sample" python3 ci/tests/tracing/check_trace.py unsampled
setup "outbound restarted as before" restart_with outbound-1

# (f) bad settings: the service starts, serves, and says so in one line
untraced_but_serving() {  # untraced_but_serving EXPECTED_LOG_TEXT
  local log_file=$NEWSFEED_RUN/services/logs/social-graph-1.log lines
  curl -sf -m 5 "$SOCIAL_GRAPH_URL/health/ready" > /dev/null || { echo "social-graph not ready"; return 1; }
  curl -sf -m 5 -X POST "$SOCIAL_GRAPH_URL/participant" -H 'Content-Type: application/json' -d '{"name":"untraced"}' ||
    { echo "social-graph does not serve"; return 1; }
  lines=$(grep -c "tracing off: $1" "$log_file" || true)
  [ "$lines" = 1 ] || { echo "expected one line 'tracing off: $1' since the restart, found $lines"; tail -n 5 "$log_file"; return 1; }
}
: > "$NEWSFEED_RUN/services/logs/social-graph-1.log"
if restart_with social-graph-1 TRACING_SAMPLE_RATIO=abc; then
  check "TRACING_SAMPLE_RATIO=abc: social-graph starts, serves, and logs one line naming the variable" \
    untraced_but_serving "TRACING_SAMPLE_RATIO must be a number from 0 to 1"
else
  echo "FAIL - social-graph with TRACING_SAMPLE_RATIO=abc did not start"; failed=$((failed + 1))
fi
unreachable_endpoint() {
  local log_file=$NEWSFEED_RUN/services/logs/social-graph-1.log i
  # port 9 (discard) on loopback: nothing listens there, so every export is refused
  : > "$log_file"
  restart_with social-graph-1 TRACING_ENDPOINT=http://127.0.0.1:9 || { echo "did not start"; return 1; }
  for i in $(seq 20); do
    curl -sf -m 5 -X POST "$SOCIAL_GRAPH_URL/participant" -H 'Content-Type: application/json' -d "{\"name\":\"lost$i\"}" > /dev/null ||
      { echo "request $i failed"; return 1; }
  done
  sleep 6   # the batch exporter's first attempt
  curl -sf -m 5 "$SOCIAL_GRAPH_URL/health/ready" > /dev/null || { echo "not ready after the failed exports"; return 1; }
}
check "an endpoint nothing listens on: social-graph starts and keeps serving" unreachable_endpoint
setup "social-graph restarted as before" restart_with social-graph-1

# (g) the make targets, twice each
jaeger_down_twice() {
  make jaeger-down >&2 && make jaeger-down >&2 || return 1
  started_jaeger=false
  if bash ci/local/jaeger.sh status; then return 1; fi
  local p
  for p in $((14318 + O)) $((16686 + O)) $((16685 + O)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "port $p still open"; return 1; fi
  done
}
check "make jaeger-up again says it is running" bash -c 'make jaeger-up 2>&1 | grep "already running" > /dev/null'
check "make jaeger-down, twice: Jaeger's ports are closed" jaeger_down_twice

echo "tracing: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
