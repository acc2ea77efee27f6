#!/usr/bin/env bash
# Suite "observability": the recording rules, the dashboards, the local Prometheus and the per-minute report.
#   promtool check rules; promtool test rules, one test per file of charts/newsfeed/files/prometheus/tests/;
#   every recorded series asserted by a promtool test; every dashboard valid and on real series only (and
#   the validator catching a misspelt metric and a repeated panel id);
#   then for real: ci/prometheus.sh start (rule groups loaded, the services' own `service` label kept),
#   stand-in services with known rates (ci/prometheus/testdata/fake_services.py) scraped for ~3 minutes while
#   a k6 probe remote-writes into it, ci/prometheus.sh report over that window (the CSV must hold the known
#   per-minute numbers, the PNGs must be images), k6's remote-written names, then stop.
# Environment: NEWSFEED_PORT_OFFSET (default 1150: services 19231-19234, Prometheus 20240),
# OBSERVABILITY_RUN_SECONDS (default 190: the live part; at least one whole minute after the first 100s).
# Last line: `observability: N passed, N failed`.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${NEWSFEED_BIN:-$HOME/.cache/newsfeed/bin}
PROMTOOL=$BIN/promtool
K6=${K6:-$BIN/k6}
RULES=charts/newsfeed/files/prometheus/newsfeed.rules.yml
DASHBOARDS=charts/newsfeed/files/dashboards
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-1150}
RUN_SECONDS=${OBSERVABILITY_RUN_SECONDS:-190}
WORK=$(mktemp -d /tmp/newsfeed-observability.XXXXXX)
export NEWSFEED_RUN=$WORK/run
PROM_URL=http://127.0.0.1:$((19090 + NEWSFEED_PORT_OFFSET))
TESTID=observability-$(date -u +%Y%m%dT%H%M%SZ)
K6_RATE=2
# shellcheck source=ci/prometheus/process.sh
source ci/prometheus/process.sh

passed=0 failed=0 fake_pid='' k6_pid=''
check() {  # check NAME CMD...: one counted test
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok - $name"; else failed=$((failed + 1)); echo "FAIL - $name"; fi
}
finish() { echo "observability: $passed passed, $failed failed"; }
stop_pid() { [ -z "$1" ] || ! alive "$1" || { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }; }
cleanup() {
  stop_pid "$k6_pid"
  bash ci/prometheus.sh stop >/dev/null 2>&1 || true
  stop_pid "$fake_pid"
  if [ "$failed" -eq 0 ]; then rm -rf "$WORK"; else echo "kept $WORK" >&2; fi
}
trap cleanup EXIT

for tool in "$PROMTOOL" "$BIN/prometheus" "$K6" jq curl python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "missing $tool (bash ci/tools.sh all)" >&2; failed=$((failed + 1)); finish; exit 1
  fi
done

# ---- rules ---------------------------------------------------------------------------------------------
check "promtool check rules $RULES" "$PROMTOOL" check rules "$RULES"
for t in charts/newsfeed/files/prometheus/tests/*.yml; do
  check "promtool test rules $t" "$PROMTOOL" test rules "$t"
done

every_rule_tested() {
  local name missing=0
  for name in $(sed -n 's/^ *- record: *//p' "$RULES" | sort -u); do
    if ! grep -q "labels: '$name{" charts/newsfeed/files/prometheus/tests/*.yml; then
      echo "  no promtool test asserts a sample of $name" >&2; missing=1
    fi
  done
  [ "$missing" -eq 0 ]
}
check "every recorded series is asserted by a promtool test" every_rule_tested

# ---- dashboards ----------------------------------------------------------------------------------------
validate() {  # prints the validator's findings only when it fails
  local out
  out=$(python3 ci/prometheus/validate_dashboards.py --rules "$RULES" --allow ci/prometheus/raw-metrics.txt "$@") \
    || { echo "$out" >&2; return 1; }
}
for d in "$DASHBOARDS"/*.json; do
  check "dashboard $d" validate "$d"
done
check "dashboard uids unique over all dashboards" validate "$DASHBOARDS"/*.json

# the validator must fail on a misspelt recorded series and on a repeated panel id
rejects() {  # rejects PYTHON_EDIT EXPECTED_MESSAGE: an edited copy of the overview must fail with that message
  local copy=$WORK/broken.json out
  python3 - "$DASHBOARDS/newsfeed-overview.json" "$copy" "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
panels = [p for p in d["panels"] if p.get("targets")]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
EOF
  if out=$(validate "$copy" 2>&1); then echo "  the validator accepted: $1" >&2; return 1; fi
  grep -q -- "$2" <<< "$out" || { echo "  expected '$2' in: $out" >&2; return 1; }
}
check "validator rejects a misspelt metric name" rejects \
  'panels[0]["targets"][0]["expr"] = panels[0]["targets"][0]["expr"].replace("requests:per_minute", "request:per_minute")' \
  "unknown metric service:newsfeed_http_server_request:per_minute"
check "validator rejects a repeated panel id" rejects 'panels[1]["id"] = panels[0]["id"]' "panel id"
check "validator rejects a panel off \${datasource}" rejects 'panels[0]["datasource"] = {"type": "prometheus", "uid": "prom"}' \
  "datasource is not"

# ---- the local Prometheus, for real --------------------------------------------------------------------
ports_free() {
  local p
  for p in $((18081 + NEWSFEED_PORT_OFFSET)) $((18082 + NEWSFEED_PORT_OFFSET)) $((18083 + NEWSFEED_PORT_OFFSET)) \
    $((18084 + NEWSFEED_PORT_OFFSET)) $((19090 + NEWSFEED_PORT_OFFSET)); do
    if port_open "$p"; then echo "  port $p is taken: set NEWSFEED_PORT_OFFSET" >&2; return 1; fi
  done
}
check "ports of offset $NEWSFEED_PORT_OFFSET are free" ports_free
if ! ports_free 2>/dev/null; then finish; exit 1; fi

mkdir -p "$NEWSFEED_RUN"
python3 -u ci/prometheus/testdata/fake_services.py "$NEWSFEED_PORT_OFFSET" > "$WORK/fake.log" 2>&1 &
fake_pid=$!
for _ in $(seq 50); do grep -q ready "$WORK/fake.log" && break; sleep 0.1; done
start=$(date +%s)

check "prometheus.sh start" bash ci/prometheus.sh start
rule_groups_loaded() {
  local want got
  want=$(sed -n 's/^ *- name: *//p' "$RULES" | sort | tr '\n' ' ')
  got=$(curl -sf "$PROM_URL/api/v1/rules" | jq -r '.data.groups[].name' | sort | tr '\n' ' ')
  [ "$want" = "$got" ] || { echo "  rule groups: want '$want', got '$got'" >&2; return 1; }
}
check "GET /api/v1/rules lists every group of the rules file" rule_groups_loaded
start_is_idempotent() { bash ci/prometheus.sh start 2>&1 | grep -q "already running"; }
check "prometheus.sh start again: already running" start_is_idempotent
check "prometheus.sh status: running" bash ci/prometheus.sh status

K6_PROMETHEUS_RW_SERVER_URL=$PROM_URL/api/v1/write K6_PROMETHEUS_RW_TREND_STATS='p(50),p(95),p(99),count' \
  "$K6" run --no-usage-report --address= -q -o experimental-prometheus-rw -e TESTID="$TESTID" -e TARGET="http://127.0.0.1:$((18082 + NEWSFEED_PORT_OFFSET))" -e RATE="$K6_RATE" \
  -e DURATION="$((RUN_SECONDS - 10))s" ci/prometheus/testdata/k6-probe.js \
  > "$WORK/k6.log" 2>&1 < /dev/null &
k6_pid=$!

service_label_kept() {  # honor_labels: the services' own `service` wins over the target label newsfeed-<svc>
  local got want="inbound@newsfeed-inbound outbound@newsfeed-outbound search@newsfeed-search social-graph@newsfeed-social-graph"
  for _ in $(seq 30); do  # each target is scraped within 5s of the start
    got=$(curl -sf "$PROM_URL/api/v1/query" --data-urlencode 'query=count by (service, job) (newsfeed_http_server_requests_seconds_count)' \
      | jq -r '[.data.result[].metric | "\(.service)@\(.job)"] | sort | join(" ")')
    [ "$got" = "$want" ] && return 0
    sleep 1
  done
  echo "  service@job: $got" >&2; return 1
}
check "scrapes keep the services' own service label (job newsfeed-<service>)" service_label_kept

echo "# scraping the stand-in services and taking k6's remote write for ${RUN_SECONDS}s" >&2
left=$((start + RUN_SECONDS - $(date +%s)))
[ "$left" -le 0 ] || sleep "$left"
wait "$k6_pid" || true
k6_pid=
end=$(date +%s)

rules_healthy() {
  local bad
  bad=$(curl -sf "$PROM_URL/api/v1/rules" | jq -r '.data.groups[].rules[] | select(.health != "ok") | "\(.name): \(.health) \(.lastError)"')
  [ -z "$bad" ] || { echo "$bad" | sed 's/^/  /' >&2; return 1; }
}
check "every recording rule evaluates without error" rules_healthy

k6_names() {  # the names and labels k6 v1.8.1 remote-writes, which the newsfeed.k6 rules read
  local names n labels
  names=$(curl -sf -G "$PROM_URL/api/v1/label/__name__/values" --data-urlencode "match[]={testid=\"$TESTID\"}" | jq -r '.data[]')
  for n in k6_http_reqs_total k6_http_req_duration_p50 k6_http_req_duration_p95 k6_http_req_duration_p99 \
    k6_http_req_duration_count k6_http_req_failed_rate k6_iterations_total k6_checks_rate k6_vus; do
    grep -qx "$n" <<< "$names" || { echo "  k6 did not write $n; it wrote: $(echo "$names" | tr '\n' ' ')" >&2; return 1; }
  done
  labels=$(curl -sf -G "$PROM_URL/api/v1/series" --data-urlencode "match[]=k6_http_reqs_total{testid=\"$TESTID\"}" \
    | jq -r '.data[0] | keys | join(" ")')
  [ "$labels" = "__name__ endpoint expected_response method name scenario status testid" ] \
    || { echo "  k6_http_reqs_total labels: $labels" >&2; return 1; }
}
check "k6 remote-writes the series and labels the k6 rules read" k6_names

report_dir=$WORK/report
check "prometheus.sh report --start --end --out --testid" \
  bash ci/prometheus.sh report --start "$start" --end "$end" --out "$report_dir" --testid "$TESTID"
# minutes whose 1m window began after the first scrapes and rule evaluations are whole minutes
check "report CSV: known per-minute throughput, errors and p50/p95/p99" \
  python3 ci/prometheus/testdata/check_report.py csv "$report_dir" "$((start + 100))" "$((K6_RATE * 60))"
check "report PNG charts are images" python3 ci/prometheus/testdata/check_report.py png "$report_dir"
markdown_has_tables() {
  local f=$report_dir/per-minute.md
  grep -q "| outbound | POST /participant/:id/outbound |" "$f" && grep -q "| k6 | probe GET /ping |" "$f" \
    && grep -q "| 7 | 1 |$" "$f" && grep -q "!\[throughput.png\](throughput.png)" "$f"
}
check "report Markdown: tables of every section and the charts" markdown_has_tables

stops_cleanly() {
  local pid
  pid=$(recorded_pid "$NEWSFEED_RUN/prometheus/prometheus.pid") || { echo "  no running pid recorded" >&2; return 1; }
  bash ci/prometheus.sh stop || return 1
  if alive "$pid"; then echo "  pid $pid still alive" >&2; return 1; fi
  if port_open $((19090 + NEWSFEED_PORT_OFFSET)); then echo "  port still open" >&2; return 1; fi
  local rc=0; bash ci/prometheus.sh status >/dev/null || rc=$?
  [ "$rc" -eq 3 ] || { echo "  status after stop: exit $rc, want 3" >&2; return 1; }
}
check "prometheus.sh stop: process gone, port closed, status stopped" stops_cleanly

finish
[ "$failed" -eq 0 ]
