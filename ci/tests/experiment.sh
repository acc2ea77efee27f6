#!/usr/bin/env bash
# Suite "experiment": the scaling-experiment runner (ci/experiment.sh) in local mode at a tiny scale on real
# stores and services: outbound at 1 and 2 instances behind the gateway, a short low-rate k6 social run each,
# measured from the local Prometheus. Checks the table (one row per replica count, non-zero throughput,
# numeric p50/p95/p99, every instance scraped), the chart (a PNG) and that nothing is left running.
# Stores: $NEWSFEED_STACK_ENV when set (e.g. the stack of ci/test.sh), otherwise a stack started here.
# Settings: EXPERIMENT_TEST_DURATION (20s), EXPERIMENT_TEST_RATE (10). Last line `experiment: N passed, N failed`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-1800}
NEWSFEED_RUN=$(mktemp -d /tmp/newsfeed-experiment-test.XXXXXX)
export NEWSFEED_RUN
chmod 755 "$NEWSFEED_RUN"   # PostgreSQL runs as the postgres user and must reach its data dir
OUT=$NEWSFEED_RUN/experiment
REPLICAS="1 2"

passed=0 failed=0
log() { echo "[experiment-test $(date +%T)] $*" >&2; }
check() {
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok - $name"; else failed=$((failed + 1)); echo "FAIL - $name"; fi
}
finish() { echo "experiment: $passed passed, $failed failed"; }

started_stack=false
cleanup() {
  local rc=$?
  # the runner stops what it started; this is the safety net for an interrupted run
  bash ci/services.sh stop >/dev/null 2>&1 || true
  bash ci/gateway.sh stop >/dev/null 2>&1 || true
  bash ci/prometheus.sh stop >/dev/null 2>&1 || true
  if $started_stack; then bash ci/stack.sh down >/dev/null 2>&1 || true; fi
  if [ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]; then rm -rf "$NEWSFEED_RUN"; else echo "kept run dir $NEWSFEED_RUN" >&2; fi
}
trap cleanup EXIT

if [ -z "${NEWSFEED_STACK_ENV:-}" ]; then
  log "starting a stack in $NEWSFEED_RUN (port offset $NEWSFEED_PORT_OFFSET)"
  started_stack=true
  if ! bash ci/stack.sh up >&2; then failed=$((failed + 1)); echo "FAIL - stack up"; finish; exit 1; fi
fi
missing=()
for s in social-graph outbound inbound search edge; do [ -f "services/$s/target/$s.jar" ] || missing+=("$s"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "building the service jars (missing: ${missing[*]})"
  mvn -B -q -f services/pom.xml install -DskipTests >&2 || { failed=$((failed + 1)); echo "FAIL - build"; finish; exit 1; }
fi

run_experiment() {
  bash ci/experiment.sh --mode local --service outbound --replicas "$REPLICAS" --scenario social \
    --rate "${EXPERIMENT_TEST_RATE:-10}" --duration "${EXPERIMENT_TEST_DURATION:-20s}" --settle 5 --pad 8 \
    --env PROFILE=ci --out "$OUT" >&2
}
check "ci/experiment.sh --mode local --replicas \"$REPLICAS\" exits 0" run_experiment

# column NAME of results.csv, one value per row
column() { python3 -c 'import csv,sys; [print(r[sys.argv[2]]) for r in csv.DictReader(open(sys.argv[1]))]' "$OUT/results.csv" "$1"; }

one_row_per_replica_count() {
  [ -f "$OUT/results.csv" ] && [ "$(column replicas | tr '\n' ' ')" = "$REPLICAS " ]
}
throughput_non_zero() {
  [ -f "$OUT/results.csv" ] || return 1
  column throughput_per_min | awk 'BEGIN { n = 0 } { if (!($1 + 0 > 0)) bad = 1; n++ } END { exit (bad || n == 0) }'
}
percentiles_numeric() {
  local c
  [ -f "$OUT/results.csv" ] || return 1
  for c in p50_ms p95_ms p99_ms api_p95_ms; do
    column "$c" | grep -qvE '^[0-9]+(\.[0-9]+)?$' && { echo "non-numeric $c: $(column "$c" | tr '\n' ' ')" >&2; return 1; }
  done
  return 0
}
every_instance_scraped() {
  [ -f "$OUT/results.csv" ] && [ "$(column instances | tr '\n' ' ')" = "$REPLICAS " ]
}
efficiency_computed() {
  [ -f "$OUT/results.csv" ] && column efficiency | awk '{ if (!($1 + 0 > 0)) bad = 1 } END { exit bad }' \
    && [ "$(column efficiency | head -n 1)" = 1.0 ]
}
markdown_table() { [ -f "$OUT/results.md" ] && [ "$(grep -cE '^\| [0-9]+ \|' "$OUT/results.md")" -eq 2 ]; }
png_chart() { [ -s "$OUT/throughput.png" ] && [ "$(head -c 8 "$OUT/throughput.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
nothing_left_running() {
  local port
  for port in 18080 18081 18082 18092 18083 18084 19090; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$((port + NEWSFEED_PORT_OFFSET))") 2>/dev/null; then
      echo "port $((port + NEWSFEED_PORT_OFFSET)) still open" >&2; return 1
    fi
  done
}

# cluster mode without a cluster: the plan of helm/kubectl commands it would run (--dry-run)
cluster_plan() {
  local plan
  plan=$(bash ci/experiment.sh --mode cluster --dry-run --service inbound --replicas "1 3" --rate 100 --duration 1m \
    --release nf --namespace bench --values values/scaling/example.yaml --out "$NEWSFEED_RUN/plan" 2>&1) || return 1
  grep -qF "helm upgrade nf charts/newsfeed -n bench --reuse-values -f values/scaling/example.yaml --set inbound.replicaCount=3" <<< "$plan" \
    && grep -qF "create job --from=cronjob/nf-k6-social exp-inbound-r3-run-" <<< "$plan" \
    && grep -qF "TESTID=exp-inbound-r3-run-" <<< "$plan" || { echo "$plan" >&2; return 1; }
}
check "cluster mode --dry-run: helm upgrade --set inbound.replicaCount=N, the k6 CronJob as a Job per count" cluster_plan

check "results.csv: one row per replica count ($REPLICAS)" one_row_per_replica_count
check "results.csv: non-zero throughput in every row" throughput_non_zero
check "results.csv: numeric p50/p95/p99 (service) and p95 (k6)" percentiles_numeric
check "results.csv: Prometheus scraped every instance of each run" every_instance_scraped
check "results.csv: scaling efficiency (1.0 at one replica)" efficiency_computed
check "results.md: a table row per replica count" markdown_table
check "throughput.png: a PNG chart" png_chart
check "the runner stopped the services, gateway and Prometheus it started" nothing_left_running
[ ! -f "$OUT/results.md" ] || cat "$OUT/results.md" >&2

finish
[ "$failed" -eq 0 ]
