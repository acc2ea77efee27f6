#!/usr/bin/env bash
# Runs a k6 scenario (k6/<scenario>.js: smoke | social | fanout | experiment | graphql | grow) against the local services
# of the run dir and keeps its reports in $NEWSFEED_RUN/reports/<testid>/: summary.json, summary.txt,
# dashboard.html, k6.log.
#
# Usage: ci/bench/load.sh <scenario> [k6 run args...]      e.g. ci/bench/load.sh social -e PROFILE=ci -e DURATION=1m
# Environment: NEWSFEED_RUN (default <repo>/.run), NEWSFEED_PORT_OFFSET (added to the service ports of
# docs/contracts.md), BASE_URL (a gateway; otherwise one URL per service on 127.0.0.1, EDGE_URL included), TESTID
# (default <scenario>-<UTC time>), PROMETHEUS_URL (remote-write the k6 metrics to that Prometheus), K6 (the
# binary), GOGC (k6's garbage collector, default 400), and every script setting of k6/README.md (PROFILE, RATE,
# DURATION, FOLLOWERS, ...), passed through.
# Exit status: k6's (99 when a threshold failed, e.g. a failed check).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

usage() { echo "usage: $0 smoke|social|fanout|experiment|graphql|grow [k6 run args...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
scenario=$1; shift
if [[ ! $scenario =~ ^[a-z]+$ ]] || [ ! -f "k6/$scenario.js" ]; then usage; fi

K6=${K6:-$HOME/.cache/newsfeed/bin/k6}
[ -x "$K6" ] || { echo "k6 not found at $K6 (install it with: bash ci/local/tools.sh all)" >&2; exit 2; }

RUN=${NEWSFEED_RUN:-$ROOT/.run}
OFFSET=${NEWSFEED_PORT_OFFSET:-0}

# Without a gateway every service is reached on its own port; explicit *_URL settings always win.
if [ -z "${BASE_URL:-}" ]; then
  export SOCIAL_GRAPH_URL=${SOCIAL_GRAPH_URL:-http://127.0.0.1:$((18081 + OFFSET))}
  export OUTBOUND_URL=${OUTBOUND_URL:-http://127.0.0.1:$((18082 + OFFSET))}
  export INBOUND_URL=${INBOUND_URL:-http://127.0.0.1:$((18083 + OFFSET))}
  export SEARCH_URL=${SEARCH_URL:-http://127.0.0.1:$((18084 + OFFSET))}
  export EDGE_URL=${EDGE_URL:-http://127.0.0.1:$((18085 + OFFSET))}
  for url in "$SOCIAL_GRAPH_URL" "$OUTBOUND_URL" "$INBOUND_URL" "$SEARCH_URL" "$EDGE_URL"; do
    curl -sf -m 2 -o /dev/null "$url/health/ready" || echo "warning: $url/health/ready does not answer 200" >&2
  done
fi

export TESTID=${TESTID:-$scenario-$(date -u +%Y%m%dT%H%M%SZ)}
REPORTS=$RUN/reports/$TESTID
mkdir -p "$REPORTS"
export SUMMARY_JSON=$REPORTS/summary.json SUMMARY_TEXT=$REPORTS/summary.txt
# K6_WEB_DASHBOARD=false saves the dashboard's CPU (benchmarks at high rates); the HTML export is then skipped
export K6_WEB_DASHBOARD=${K6_WEB_DASHBOARD:-true} K6_WEB_DASHBOARD_EXPORT=$REPORTS/dashboard.html
export K6_WEB_DASHBOARD_PORT=${K6_WEB_DASHBOARD_PORT:--1}   # -1: no live server, only the HTML export
# the dashboard skips its export when it has too few snapshots: short runs need a short period
case $scenario in smoke | fanout) period=250ms ;; *) period=3s ;; esac
export K6_WEB_DASHBOARD_PERIOD=${K6_WEB_DASHBOARD_PERIOD:-$period}
export K6_NO_USAGE_REPORT=true
# k6 is a Go program and at thousands of requests/s its garbage collector took a quarter of its CPU, on the cores
# the measured services share: collect less often (memory is cheap here, CPU is not; GOGC overrides)
export GOGC=${GOGC:-400}

outputs=()
if [ -n "${PROMETHEUS_URL:-}" ] && [ -z "${K6_PROMETHEUS_RW_SERVER_URL:-}" ]; then
  export K6_PROMETHEUS_RW_SERVER_URL=${PROMETHEUS_URL%/}/api/v1/write
fi
if [ -n "${K6_PROMETHEUS_RW_SERVER_URL:-}" ]; then
  export K6_PROMETHEUS_RW_TREND_STATS=${K6_PROMETHEUS_RW_TREND_STATS:-p(50),p(95),p(99),count}
  outputs=(-o experimental-prometheus-rw)
fi

echo "k6 $scenario: testid $TESTID, reports in $REPORTS" >&2
set +e
"$K6" run --no-usage-report "${outputs[@]}" "$@" "k6/$scenario.js" 2>&1 | tee "$REPORTS/k6.log"
rc=${PIPESTATUS[0]}
set -e
echo "k6 $scenario: exit $rc; $SUMMARY_JSON, $K6_WEB_DASHBOARD_EXPORT" >&2
exit "$rc"
