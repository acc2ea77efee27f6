#!/usr/bin/env bash
# Everything on this machine: real stores, the five services behind the gateway (the single API by path, as the
# chart's Ingress/HTTPRoute), the local Prometheus with the chart's recording rules, a k6 social run remote-writing
# to it, then a per-minute report (HTML, Markdown, CSV, PNG charts) whose HTML path it prints. Stops everything it
# started unless KEEP_RUNNING=1; then it ends with where the API, Prometheus and the report are and the one command
# that stops it all.
# TRACING=1 also starts the local Jaeger (ci/local/jaeger.sh; built on first use, minutes) and has the services trace
# TRACING_SAMPLE_RATIO of the requests (default 0.05) into it; the demo then prints the slowest post's trace.
#   DEMO_DURATION (default 3m)  DEMO_RATE (iterations/s, default 50)  NEWSFEED_RUN (default .run)
set -euo pipefail
cd "$(dirname "$0")/../.."
export NEWSFEED_RUN=${NEWSFEED_RUN:-$PWD/.run}
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-0}
DEMO_DURATION=${DEMO_DURATION:-3m}
DEMO_RATE=${DEMO_RATE:-50}
log() { echo "[demo $(date +%T)] $*"; }
# shellcheck source=ci/local/demo-common.sh
source ci/local/demo-common.sh

PATH="$(bash ci/local/tools.sh all | tail -n 1):$PATH"; export PATH
log "building the services"
mvn -q -f services/pom.xml package -DskipTests

stop_all() {
  [ "${KEEP_RUNNING:-0}" = 1 ] && return
  bash ci/local/gateway.sh stop || true
  bash ci/local/prometheus.sh stop || true
  [ "${TRACING:-0}" != 1 ] || bash ci/local/jaeger.sh stop || true
  bash ci/local/services.sh stop || true
  bash ci/local/stack.sh down || true
}
trap stop_all EXIT

bash ci/local/stack.sh up
if [ "${TRACING:-0}" = 1 ]; then
  bash ci/local/jaeger.sh start
  SERVICE_ENV="${SERVICE_ENV:-} TRACING_ENABLED=true TRACING_ENDPOINT=$(bash ci/local/jaeger.sh endpoint)"
  SERVICE_ENV+=" TRACING_SAMPLE_RATIO=${TRACING_SAMPLE_RATIO:-0.05}"
  export SERVICE_ENV
fi
bash ci/local/services.sh start
bash ci/local/gateway.sh start
bash ci/local/prometheus.sh start
PROMETHEUS_URL=http://127.0.0.1:$((19090 + NEWSFEED_PORT_OFFSET))
API_URL=http://127.0.0.1:$((18080 + NEWSFEED_PORT_OFFSET))

testid=demo-$(date +%Y%m%d-%H%M%S)
log "k6 social run $testid: $DEMO_RATE it/s for $DEMO_DURATION"
start=$(date +%s)
TESTID=$testid DURATION=$DEMO_DURATION RATE=$DEMO_RATE PROMETHEUS_URL=$PROMETHEUS_URL bash ci/bench/load.sh social || k6_rc=$?
# the report's rows are whole minutes: its window ends once the run's last minute is recorded
end=$(report_end)

out=$NEWSFEED_RUN/reports/$testid
bash ci/local/prometheus.sh report --start "$start" --end "$end" --out "$out" --testid "$testid"
# the HTML holds the whole report (tables and charts) in one file a browser opens
log "report:     $out/per-minute.html (per-minute.md, .csv, PNG charts and the k6 HTML dashboard beside it)"
if [ "${TRACING:-0}" = 1 ]; then
  bash ci/local/jaeger.sh show outbound 1 "POST /participant/:id/outbound" || true
  log "traces:     $(bash ci/local/jaeger.sh url)/api/traces?service=outbound (Jaeger's query API; the 5 slowest posts: bash ci/local/jaeger.sh show outbound 5 'POST /participant/:id/outbound')"
fi
if [ "${KEEP_RUNNING:-0}" = 1 ]; then
  log "API:        $API_URL (the classic single API, e.g. curl $API_URL/participant/1)"
  log "Prometheus: $PROMETHEUS_URL (recording rules: $PROMETHEUS_URL/rules)"
  log "dashboards: charts/newsfeed/files/dashboards/*.json (import into a Grafana reading $PROMETHEUS_URL)"
  log "still running; stop everything with: $(stop_command)"
fi
exit "${k6_rc:-0}"
