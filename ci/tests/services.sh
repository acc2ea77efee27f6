#!/usr/bin/env bash
# Suite "services": every module's unit tests (*Test) and integration tests (*IT) against the real stores, in one
# Maven reactor run (`verify`). Inbound's ITs read friendships from a running social-graph and edge's call all
# four, so the five services run too (ci/services.sh on NEWSFEED_PORT_OFFSET, default 600).
# Uses the stack named by NEWSFEED_STACK_ENV (ci/test.sh shares one), else starts its own.
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
modules=(common social-graph outbound inbound search edge)
reports=()
for m in "${modules[@]}"; do reports+=("services/$m/target/surefire-reports" "services/$m/target/failsafe-reports"); done
run_maven "unit and integration tests of ${modules[*]}" "${reports[@]}" -- -f services/pom.xml --fail-at-end verify

echo "services: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
