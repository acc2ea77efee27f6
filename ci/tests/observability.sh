#!/usr/bin/env bash
# Suite "observability": the recording and alerting rules, the dashboards, the local Prometheus and the per-minute
# report.
#   promtool check rules (both files); promtool test rules, one test per file of
#   charts/newsfeed/files/prometheus/tests/; every recorded series asserted by a promtool test; every alert tested
#   firing and not firing; the chart's PrometheusRule (helm template) holding exactly both files' groups by
#   default, only the recording rules with alerts off, the thresholds of the values otherwise; every dashboard
#   valid and on real series only (and the validator catching a misspelt metric and a repeated panel id) and
#   conforming to Grafana's dashboard schema (@grafana/schema, and the check refusing what it must);
#   then for real: ci/local/prometheus.sh start (rule groups of both files loaded, the services' own `service` label kept),
#   stand-in services with known rates (ci/tests/observability/testdata/fake_services.py) scraped for ~3 minutes while
#   a k6 probe remote-writes into it, ci/local/prometheus.sh report over that window (the CSV must hold the known
#   per-minute numbers, the PNGs must be images, the HTML self-contained with the Markdown's rows, and broken
#   copies of it refused), k6's remote-written names, then stop.
# Environment: NEWSFEED_PORT_OFFSET (default 1150: services 19231-19234, Prometheus 20240),
# OBSERVABILITY_RUN_SECONDS (default 190: the live part; at least one whole minute after the first 100s).
# Last line: `observability: N passed, N failed`.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${NEWSFEED_BIN:-$HOME/.cache/newsfeed/bin}
PROMTOOL=$BIN/promtool
K6=${K6:-$BIN/k6}
RULES=charts/newsfeed/files/prometheus/newsfeed.rules.yml
ALERTS=charts/newsfeed/files/prometheus/newsfeed.alerts.yml
HELM=$BIN/helm
DASHBOARDS=charts/newsfeed/files/dashboards
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-1150}
RUN_SECONDS=${OBSERVABILITY_RUN_SECONDS:-190}
WORK=$(mktemp -d /tmp/newsfeed-observability.XXXXXX)
export NEWSFEED_RUN=$WORK/run
PROM_URL=http://127.0.0.1:$((19090 + NEWSFEED_PORT_OFFSET))
TESTID=observability-$(date -u +%Y%m%dT%H%M%SZ)
K6_RATE=2
# shellcheck source=ci/local/process.sh
source ci/local/process.sh

passed=0 failed=0 fake_pid='' k6_pid=''
check() {  # check NAME CMD...: one counted test
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok - $name"; else failed=$((failed + 1)); echo "FAIL - $name"; fi
}
finish() { echo "observability: $passed passed, $failed failed"; }
stop_pid() { [ -z "$1" ] || ! alive "$1" || { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }; }
cleanup() {
  stop_pid "$k6_pid"
  bash ci/local/prometheus.sh stop >/dev/null 2>&1 || true
  stop_pid "$fake_pid"
  if [ "$failed" -eq 0 ]; then rm -rf "$WORK"; else echo "kept $WORK" >&2; fi
}
trap cleanup EXIT

for tool in "$PROMTOOL" "$BIN/prometheus" "$K6" "$HELM" jq curl python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "missing $tool (bash ci/local/tools.sh all)" >&2; failed=$((failed + 1)); finish; exit 1
  fi
done

# ---- rules ---------------------------------------------------------------------------------------------
check "promtool check rules $RULES" "$PROMTOOL" check rules "$RULES"
check "promtool check rules $ALERTS" "$PROMTOOL" check rules "$ALERTS"
for t in charts/newsfeed/files/prometheus/tests/*.yml; do
  check "promtool test rules $t" "$PROMTOOL" test rules "$t"
done

every_rule_tested() {
  local name missing=0
  for name in $(sed -n 's/^ *- record: *//p' "$RULES" "$ALERTS" | sort -u); do
    if ! grep -q "labels: '$name{" charts/newsfeed/files/prometheus/tests/*.yml; then
      echo "  no promtool test asserts a sample of $name" >&2; missing=1
    fi
  done
  [ "$missing" -eq 0 ]
}
check "every recorded series is asserted by a promtool test" every_rule_tested

every_alert_tested() {  # each alert: an alert_rule_test expecting it to fire, and one expecting it not to
  python3 - "$ALERTS" charts/newsfeed/files/prometheus/tests/*.yml <<'EOF'
import sys, yaml
alerts = [r["alert"] for g in yaml.safe_load(open(sys.argv[1]))["groups"] for r in g["rules"] if "alert" in r]
firing, quiet = set(), set()
for path in sys.argv[2:]:
    for test in yaml.safe_load(open(path)).get("tests", []):
        for case in test.get("alert_rule_test", []):
            (firing if case.get("exp_alerts") else quiet).add(case["alertname"])
missing = [f"  {a}: no {kind} case" for a in alerts for kind, seen in (("firing", firing), ("not firing", quiet))
           if a not in seen]
unknown = [f"  a test expects {a}, which {sys.argv[1]} does not define" for a in sorted((firing | quiet) - set(alerts))]
if missing or unknown or not alerts:
    print("\n".join(missing + unknown) or "  no alert defined", file=sys.stderr)
    sys.exit(1)
EOF
}
check "every alert has a firing and a not-firing promtool test" every_alert_tested

# ---- the chart's PrometheusRule ------------------------------------------------------------------------
# helm template of a copy of the umbrella chart with only its PrometheusRule (no subcharts: none is needed)
CHART=$WORK/chart
rm -rf "$CHART"; cp -rL charts/newsfeed "$CHART"
python3 - "$CHART/Chart.yaml" <<'EOF'
import sys, yaml
chart = yaml.safe_load(open(sys.argv[1])); chart.pop("dependencies", None)
yaml.safe_dump(chart, open(sys.argv[1], "w"), sort_keys=False)
EOF
rm -f "$CHART/Chart.lock"
find "$CHART/templates" -type f ! -name '_*' ! -name prometheusrule.yaml -delete
render_rule() {  # render_rule OUT HELM_ARGS...: the PrometheusRule's spec as a rules file
  HELM_CONFIG_HOME=$WORK/helm HELM_CACHE_HOME=$WORK/helm HELM_DATA_HOME=$WORK/helm \
    "$HELM" template newsfeed "$CHART" -n newsfeed --set monitoring.prometheusRule.enabled=true "${@:2}" > "$WORK/rule.yaml" \
    || return 1
  python3 - "$WORK/rule.yaml" "$1" <<'EOF'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d.get("kind") == "PrometheusRule"]
assert len(docs) == 1, f"{len(docs)} PrometheusRules rendered"
yaml.safe_dump({"groups": docs[0]["spec"]["groups"]}, open(sys.argv[2], "w"), sort_keys=False)
EOF
}
same_groups() {  # same_groups RENDERED FILE...: the rendered groups are exactly those of the files, in order
  python3 - "$@" <<'EOF'
import sys, yaml
got = yaml.safe_load(open(sys.argv[1]))["groups"]
want = [g for f in sys.argv[2:] for g in yaml.safe_load(open(f))["groups"]]
if got != want:
    print(f"  rendered groups {[g['name'] for g in got]}, want {[g['name'] for g in want]}", file=sys.stderr)
    for g, w in zip(got, want):
        if g != w:
            print(f"  group {w['name']} differs:\n  rendered {g}\n  file     {w}", file=sys.stderr)
    sys.exit(1)
EOF
}
chart_default_rules() { render_rule "$WORK/default.rules.yml" && same_groups "$WORK/default.rules.yml" "$RULES" "$ALERTS"; }
check "chart PrometheusRule by default: the recording rules and the alerts with the thresholds of $ALERTS" chart_default_rules
chart_alerts_off() {
  render_rule "$WORK/off.rules.yml" --set monitoring.prometheusRule.alerts.enabled=false &&
    same_groups "$WORK/off.rules.yml" "$RULES"
}
check "chart PrometheusRule with alerts.enabled=false: the recording rules only" chart_alerts_off
chart_thresholds() {  # values become the thresholds (a big number without an exponent); a valid rules file
  render_rule "$WORK/custom.rules.yml" --set-json monitoring.prometheusRule.alerts.http5xxRatio=0.01 \
    --set-json monitoring.prometheusRule.alerts.kafkaConsumerLagRecords=1000000 \
    --set-json 'monitoring.prometheusRule.alerts.latencyP95Targets=[{"service":"search","route":"/outbound","method":"GET","seconds":0.25}]' \
    || return 1
  "$PROMTOOL" check rules "$WORK/custom.rules.yml" >/dev/null || return 1
  python3 - "$WORK/custom.rules.yml" <<'EOF'
import sys, yaml
groups = {g["name"]: g for g in yaml.safe_load(open(sys.argv[1]))["groups"]}
got = [(r["record"], r["expr"], r.get("labels")) for r in groups["newsfeed.alert-thresholds"]["rules"]]
want = [
    ("alert:newsfeed_threshold:value", "vector(0.01)", {"alert": "NewsfeedHttp5xxRatioHigh"}),
    ("service_route_method:newsfeed_http_server_requests_seconds:p95_target", "vector(0.25)",
     {"service": "search", "route": "/outbound", "method": "GET"}),
    ("alert:newsfeed_threshold:value", "vector(1000000)", {"alert": "NewsfeedKafkaConsumerLagHigh"}),
    ("alert:newsfeed_threshold:value", "vector(2)", {"alert": "NewsfeedFanoutDelayHigh"}),
    ("alert:newsfeed_threshold:value", "vector(2)", {"alert": "NewsfeedSearchIndexDelayHigh"}),
    ("alert:newsfeed_threshold:value", "vector(0.05)", {"alert": "NewsfeedStoreErrorRatioHigh"}),
]
if got != want:
    print("  thresholds rendered:\n" + "\n".join(f"    {g}" for g in got), file=sys.stderr)
    sys.exit(1)
EOF
}
check "chart PrometheusRule: thresholds and p95 targets from the values, promtool-valid" chart_thresholds
chart_refuses() {  # chart_refuses REGEX HELM_ARGS...: rendering fails with an error matching REGEX
  local out
  if out=$(render_rule "$WORK/refused.rules.yml" "${@:2}" 2>&1); then echo "  rendered: ${*:2}" >&2; return 1; fi
  grep -qE -- "$1" <<< "$out" || { echo "  expected /$1/ in: $out" >&2; return 1; }
}
check "chart refuses a 5xx ratio threshold above 1 (values.schema.json)" chart_refuses 'http5xxRatio' \
  --set monitoring.prometheusRule.alerts.http5xxRatio=5
check "chart refuses a p95 target without its route (values.schema.json)" chart_refuses 'route' \
  --set-json 'monitoring.prometheusRule.alerts.latencyP95Targets=[{"service":"inbound","method":"GET","seconds":0.02}]'
check "chart refuses an API operation with two p95 targets" chart_refuses 'listed twice' \
  --set-json 'monitoring.prometheusRule.alerts.latencyP95Targets=[{"service":"inbound","route":"/participant/:id/inbound","method":"GET","seconds":0.02},{"service":"inbound","route":"/participant/:id/inbound","method":"GET","seconds":0.05}]'

# ---- dashboards ----------------------------------------------------------------------------------------
validate() {  # prints the validator's findings only when it fails
  local out
  out=$(python3 ci/tests/observability/validate_dashboards.py --rules "$RULES" --allow ci/tests/observability/raw-metrics.txt "$@") \
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

# Grafana's own dashboard schema (@grafana/schema, pinned in ci/local/tools.sh): every dashboard conforms, and a
# misspelt panel field or a value of the wrong type is refused
check "dashboards conform to Grafana's schema (@grafana/schema)" bash ci/tests/observability/check_dashboard_schema.sh \
  "$DASHBOARDS"/*.json
schema_rejects() {  # schema_rejects PYTHON_EDIT EXPECTED_MESSAGE: as rejects, through the schema check
  local copy=$WORK/off-schema.json out
  python3 - "$DASHBOARDS/newsfeed-overview.json" "$copy" "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=2)
EOF
  if out=$(bash ci/tests/observability/check_dashboard_schema.sh "$copy" 2>&1); then echo "  the schema accepted: $1" >&2; return 1; fi
  grep -q -- "$2" <<< "$out" || { echo "  expected '$2' in: $out" >&2; return 1; }
}
check "schema check refuses a misspelt panel field" schema_rejects \
  'd["panels"][0]["gridPoss"] = d["panels"][0].pop("gridPos")' "'\"gridPoss\"' does not exist"
check "schema check refuses a refresh that is not a string" schema_rejects 'd["refresh"] = 30' \
  "Type 'number' is not assignable to type 'string'"

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
python3 -u ci/tests/observability/testdata/fake_services.py "$NEWSFEED_PORT_OFFSET" > "$WORK/fake.log" 2>&1 &
fake_pid=$!
for _ in $(seq 50); do grep -q ready "$WORK/fake.log" && break; sleep 0.1; done
start=$(date +%s)

check "prometheus.sh start" bash ci/local/prometheus.sh start
rule_groups_loaded() {
  local want got
  want=$(sed -n 's/^ *- name: *//p' "$RULES" "$ALERTS" | sort | tr '\n' ' ')
  got=$(curl -sf "$PROM_URL/api/v1/rules" | jq -r '.data.groups[].name' | sort | tr '\n' ' ')
  [ "$want" = "$got" ] || { echo "  rule groups: want '$want', got '$got'" >&2; return 1; }
}
check "GET /api/v1/rules lists every group of the rules and alerts files" rule_groups_loaded
start_is_idempotent() { bash ci/local/prometheus.sh start 2>&1 | grep "already running" > /dev/null; }
check "prometheus.sh start again: already running" start_is_idempotent
check "prometheus.sh status: running" bash ci/local/prometheus.sh status

K6_PROMETHEUS_RW_SERVER_URL=$PROM_URL/api/v1/write K6_PROMETHEUS_RW_TREND_STATS='p(50),p(95),p(99),count' \
  "$K6" run --no-usage-report --address= -q -o experimental-prometheus-rw -e TESTID="$TESTID" -e TARGET="http://127.0.0.1:$((18082 + NEWSFEED_PORT_OFFSET))" -e RATE="$K6_RATE" \
  -e DURATION="$((RUN_SECONDS - 10))s" ci/tests/observability/testdata/k6-probe.js \
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
check "every recording and alerting rule evaluates without error" rules_healthy

# the stand-ins answer 20 % of outbound's posts with 503, both API operations with a target at a p95 of 175 ms,
# and report consumer lag without any commit metric: after ~3 minutes those alerts are pending (`for: 5m`) or,
# for the commits (`for: 1m`), firing, none other is active, and every annotation is expanded (threshold included)
alerts_on_live_series() {
  curl -sf "$PROM_URL/api/v1/alerts" > "$WORK/alerts.json" || return 1
  python3 - "$WORK/alerts.json" <<'EOF'
import json, re, sys
alerts = json.load(open(sys.argv[1]))["data"]["alerts"]
got = sorted((a["labels"]["alertname"], a["labels"].get("service", ""), a["labels"].get("route", ""), a["state"])
             for a in alerts)
want = sorted([
    ("NewsfeedHttp5xxRatioHigh", "outbound", "", "pending"),
    ("NewsfeedLatencyP95OverTarget", "outbound", "/participant/:id/outbound", "pending"),
    ("NewsfeedLatencyP95OverTarget", "inbound", "/participant/:id/inbound", "pending"),
    ("NewsfeedKafkaCommitsStalled", "inbound", "", "firing"),
    ("NewsfeedKafkaCommitsStalled", "search", "", "firing"),
])
problems = [] if got == want else [f"active alerts {got}, want {want}"]
for a in alerts:
    for key, text in a["annotations"].items():
        if "error expanding" in text or "<no value>" in text or "{{" in text:
            problems.append(f"{a['labels']['alertname']} {key}: {text}")
for a in alerts:  # about 20 % measured, the 5 % threshold read back from its series
    text = a["annotations"]["description"]
    if a["labels"]["alertname"] == "NewsfeedHttp5xxRatioHigh" and not re.match(
            r"(19|20|21)(\.\d+)?% of the API requests to outbound .* above the threshold of 5% for 5 minutes\.$", text):
        problems.append(f"NewsfeedHttp5xxRatioHigh description: {text}")
print("\n".join(f"  {p}" for p in problems), file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
}
check "alerts on the scraped stand-ins: the expected ones pending or firing, annotations expanded" alerts_on_live_series

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
  bash ci/local/prometheus.sh report --start "$start" --end "$end" --out "$report_dir" --testid "$TESTID"
# minutes whose 1m window began after the first scrapes and rule evaluations are whole minutes
check "report CSV: known per-minute throughput, errors and p50/p95/p99" \
  python3 ci/tests/observability/testdata/check_report.py csv "$report_dir" "$((start + 100))" "$((K6_RATE * 60))"
check "report PNG charts are images" python3 ci/tests/observability/testdata/check_report.py png "$report_dir"
markdown_has_tables() {
  local f=$report_dir/per-minute.md
  grep -q "| outbound | POST /participant/:id/outbound |" "$f" && grep -q "| k6 | probe GET /ping |" "$f" \
    && grep -q "| 7 | 1 |$" "$f" && grep -q "!\[throughput.png\](throughput.png)" "$f"
}
check "report Markdown: tables of every section and the charts" markdown_has_tables
check "report HTML: self-contained (charts inlined as PNG data: URIs), the Markdown's rows" \
  python3 ci/tests/observability/check_html_report.py "$report_dir"
# the HTML check must refuse broken copies of the page (checked against the report's Markdown and PNGs)
html_rejects() {  # html_rejects PYTHON_EDIT EXPECTED_MESSAGE: the edited copy must fail with that message
  local copy=$WORK/broken.html out
  python3 - "$report_dir/per-minute.html" "$copy" "$1" <<'EOF'
import re, sys
page = open(sys.argv[1]).read()
exec(sys.argv[3])
open(sys.argv[2], "w").write(page)
EOF
  if out=$(python3 ci/tests/observability/check_html_report.py "$report_dir" "$copy" 2>&1); then
    echo "  the HTML check accepted: $1" >&2; return 1
  fi
  grep -q -- "$2" <<< "$out" || { echo "  expected '$2' in: $out" >&2; return 1; }
}
check "HTML check refuses an <img> with an external src" html_rejects \
  'page = page.replace("src=\"data:image/png;base64,", "src=\"https://example.com/chart.png?", 1)' "external src"
check "HTML check refuses a <script>" html_rejects \
  'page = page.replace("</body>", "<script>alert(1)</script></body>")' "<script> in the page"
check "HTML check refuses a page missing a table row" html_rejects \
  'page = re.sub(r"<tbody>\n<tr>.*?</tr>\n", "<tbody>\n", page, count=1)' "rows, per-minute.md has"

stops_cleanly() {
  local pid
  pid=$(recorded_pid "$NEWSFEED_RUN/prometheus/prometheus.pid") || { echo "  no running pid recorded" >&2; return 1; }
  bash ci/local/prometheus.sh stop || return 1
  if alive "$pid"; then echo "  pid $pid still alive" >&2; return 1; fi
  if port_open $((19090 + NEWSFEED_PORT_OFFSET)); then echo "  port still open" >&2; return 1; fi
  local rc=0; bash ci/local/prometheus.sh status >/dev/null || rc=$?
  [ "$rc" -eq 3 ] || { echo "  status after stop: exit $rc, want 3" >&2; return 1; }
}
check "prometheus.sh stop: process gone, port closed, status stopped" stops_cleanly

finish
[ "$failed" -eq 0 ]
