#!/usr/bin/env bash
# Suite "services": every module's unit tests (*Test) and integration tests (*IT) against the real stores, in one
# Maven reactor run (`verify`). Inbound's ITs read friendships from a running social-graph and edge's call all
# four, so the five services run too (ci/local/services.sh on NEWSFEED_PORT_OFFSET, default 600). Then the local
# runner's scaling: with social-graph at two instances (SERVICE_INSTANCES, edge restarted with both), edge's
# GraphQL reads land on both.
# Uses the stack named by NEWSFEED_STACK_ENV (ci/tests/run.sh shares one), else starts its own.
# Last line: `services: N passed, N failed` (the JUnit reports of every module).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SUITE=services
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-600}
passed=0 failed=0
log() { echo "[services-suite $(date +%T)] $*" >&2; }
# shellcheck source=ci/tests/lib/maven.sh
source ci/tests/lib/maven.sh
# shellcheck source=ci/tests/lib/system.sh
source ci/tests/lib/system.sh
suite_run_dir services
trap 'system_cleanup $?' EXIT

system_up
modules=(common social-graph outbound inbound search edge kafka-lag-exporter)
reports=()
for m in "${modules[@]}"; do reports+=("services/$m/target/surefire-reports" "services/$m/target/failsafe-reports"); done
run_maven "unit and integration tests of ${modules[*]}" "${reports[@]}" -- -f services/pom.xml --fail-at-end verify

# GET /participant/:id requests one social-graph instance served (its own HTTP server histogram)
participant_gets() {
  curl -sf -m 5 "http://127.0.0.1:$1/metrics" \
    | awk '/^newsfeed_http_server_requests_seconds_count\{/ && /method="GET"/ && /route="\/participant\/:id"/ { n += $2 }
           END { printf "%d\n", n }'
}
# ci/local/services.sh start with a second social-graph instance starts it and restarts edge with both URLs; 20 reads
# through edge then reach each instance (round robin: 10 each; at least 5 allows for other traffic)
edge_reaches_every_instance() {
  local id ports=() before=() i n rc=0 q
  id=$(curl -sf -m 10 -H 'Content-Type: application/json' -d '{"name":"edge instances"}' \
    "$SOCIAL_GRAPH_URL/participant" | jq -r .id) || { log "could not create a participant"; return 1; }
  SERVICE_INSTANCES="social-graph=2" bash ci/local/services.sh start >&2 || return 1
  mapfile -t ports < <(SERVICE_INSTANCES="social-graph=2" bash ci/local/services.sh ports social-graph)
  for i in "${!ports[@]}"; do before[i]=$(participant_gets "${ports[$i]}") || return 1; done
  q="{\"query\": \"query { participant(id: $id) { name } }\"}"
  for i in $(seq 20); do
    curl -sf -m 15 -H 'Content-Type: application/json' -d "$q" "$EDGE_URL/graphql" \
      | jq -e '.data.participant.name == "edge instances"' >/dev/null || { log "read $i through edge failed"; return 1; }
  done
  for i in "${!ports[@]}"; do
    n=$(( $(participant_gets "${ports[$i]}") - before[i] ))
    log "social-graph on port ${ports[$i]} served $n of edge's 20 reads"
    [ "$n" -ge 5 ] || rc=1
  done
  return $rc
}
if edge_reaches_every_instance; then
  passed=$((passed + 1)); log "ok - edge reaches every local instance of a service"
else
  failed=$((failed + 1)); log "FAIL - edge reaches every local instance of a service"
fi

echo "services: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
