#!/usr/bin/env bash
# Suite "e2e": the end-to-end tests through the five running services on real stores (services/e2e): participants,
# friendships, a post, and within a bounded wait the post in every friend's inbound exactly once, in the outbound
# and in search; every operation's real responses validated against docs/openapi.yaml; and the classic load
# client's requests (JSON, form and GraphQL creates) replayed through the single API of the local gateway (GATEWAY_URL).
#
# Uses the stack named by NEWSFEED_STACK_ENV (ci/tests/run.sh shares one), else starts its own with `ci/local/stack.sh up`
# in a fresh run dir. Builds the jars if missing or stale, starts the services (`ci/local/services.sh start`) on
# NEWSFEED_PORT_OFFSET (default 700) with the gateway in front (`ci/local/gateway.sh start`), and stops everything it
# started on exit.
# Last line: `e2e: N passed, N failed` (the JUnit reports of services/e2e).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SUITE=e2e
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-700}
passed=0 failed=0 started_gateway=false
log() { echo "[e2e $(date +%T)] $*" >&2; }
# shellcheck source=ci/tests/lib/maven.sh
source ci/tests/lib/maven.sh
# shellcheck source=ci/tests/lib/system.sh
source ci/tests/lib/system.sh
suite_run_dir e2e
cleanup() {
  local rc=$?
  if $started_gateway; then bash ci/local/gateway.sh stop >&2 || log "ci/local/gateway.sh stop failed"; fi
  system_cleanup "$rc"
}
trap cleanup EXIT

system_up
started_gateway=true
setup "ci/local/gateway.sh start" bash ci/local/gateway.sh start >&2
export GATEWAY_URL="http://127.0.0.1:$((18080 + NEWSFEED_PORT_OFFSET))"
run_maven "end-to-end tests" services/e2e/target/surefire-reports services/e2e/target/failsafe-reports -- \
  -f services/e2e/pom.xml verify

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
