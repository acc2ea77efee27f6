#!/usr/bin/env bash
# Asserts from Prometheus that the chart's recording rules produced, for every service, per-minute throughput
# and p95 latency of its API (the series of charts/newsfeed/files/prometheus/newsfeed.rules.yml, group
# newsfeed.http, which leave out /metrics and /health/* so probes and scrapes alone never pass).
# Usage: ci/release/assert-recorded.sh PROMETHEUS_URL
# Environment: SERVICES (default "social-graph outbound inbound search": the REST services the k6 smoke job
# drives; edge serves GraphQL only), WINDOW (PromQL range that covers the
# load run, default 15m), TIMEOUT (seconds to wait for the rules, default 240: they run every 30s).
# Prints `ok - ` / `FAIL - ` per service and series; exits 1 if any series is missing after TIMEOUT.
set -euo pipefail
url=${1:?usage: assert-recorded.sh PROMETHEUS_URL}
read -r -a services <<< "${SERVICES:-social-graph outbound inbound search}"
window=${WINDOW:-15m}
timeout=${TIMEOUT:-240}

THROUGHPUT=service:newsfeed_http_server_requests:per_minute
LATENCY=service:newsfeed_http_server_requests_seconds:histogram_quantile

# value SELECTOR: the largest value of a recorded series over the window, empty when absent or NaN throughout
value() {
  curl -sf -m 10 -G "$url/api/v1/query" --data-urlencode "query=max(max_over_time($1[$window])) > 0" |
    jq -r '.data.result[0].value[1] // empty'
}

deadline=$((SECONDS + timeout))
while :; do
  lines=() missing=0
  for s in "${services[@]}"; do
    for series in "$THROUGHPUT{service=\"$s\"}" "$LATENCY{service=\"$s\",quantile=\"0.95\"}"; do
      v=$(value "$series" || true)
      if [ -n "$v" ]; then lines+=("ok - $series = $v"); else lines+=("FAIL - $series: no value > 0 over $window"); missing=$((missing + 1)); fi
    done
  done
  if [ "$missing" -eq 0 ] || [ "$SECONDS" -ge "$deadline" ]; then break; fi
  sleep 10
done
printf '%s\n' "${lines[@]}"
[ "$missing" -eq 0 ]
