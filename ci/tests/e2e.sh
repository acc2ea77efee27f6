#!/usr/bin/env bash
# Suite "e2e": the end-to-end tests through the four running services on real stores (services/e2e): participants,
# friendships, a post, and within a bounded wait the post in every friend's inbound exactly once, in the outbound
# and in search; and every operation's real responses validated against docs/openapi.yaml.
#
# Uses the stack named by NEWSFEED_STACK_ENV (ci/test.sh shares one), else starts its own with `ci/stack.sh up`
# in a fresh run dir. Builds the jars if missing or stale, starts the services (`ci/services.sh start`) on
# NEWSFEED_PORT_OFFSET (default 700), and stops everything it started on exit.
# Last line: `e2e: N passed, N failed` (the JUnit reports of services/e2e).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SUITE=e2e
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-700}
passed=0 failed=0
log() { echo "[e2e $(date +%T)] $*" >&2; }
# shellcheck source=ci/tests/lib/maven.sh
source ci/tests/lib/maven.sh
# shellcheck source=ci/tests/lib/system.sh
source ci/tests/lib/system.sh
suite_run_dir e2e
trap 'system_cleanup $?' EXIT

system_up
run_maven "end-to-end tests" services/e2e/target/surefire-reports services/e2e/target/failsafe-reports -- \
  -f services/e2e/pom.xml verify

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
