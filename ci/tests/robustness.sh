#!/usr/bin/env bash
# Suite "robustness": bad input and OpenAPI fuzzing against the five running services on real stores.
#   (a) ci/tests/robustness/bad_input.py: malformed JSON, wrong JSON types, missing fields, bodies over
#       HTTP_MAX_BODY_BYTES, bad ids and paging parameters, unicode and injection strings (SQL, CQL, Solr query
#       syntax) on every endpoint; each answer a 4xx JSON error or a correct 2xx, never 5xx or HTML; and nothing
#       stored from a rejected request (PostgreSQL rows counted with psql, feeds and search read before/after).
#   (b) ci/tests/robustness/fuzz.py: Schemathesis (pinned, venv in ~/.cache/newsfeed) over docs/openapi.yaml through
#       the local gateway (ci/local/gateway.sh): no 5xx, answers conform to the spec.
# Uses the stack named by NEWSFEED_STACK_ENV (ci/tests/run.sh shares one), else starts its own in a fresh run dir;
# services on NEWSFEED_PORT_OFFSET (default 1700). Last line: `robustness: N passed, N failed`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SUITE=robustness
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-1700}
passed=0 failed=0 started_gateway=false
log() { echo "[robustness $(date +%T)] $*" >&2; }
# shellcheck source=ci/tests/lib/maven.sh
source ci/tests/lib/maven.sh
# shellcheck source=ci/tests/lib/system.sh
source ci/tests/lib/system.sh
suite_run_dir robustness
OUT=$NEWSFEED_RUN/robustness

cleanup() {
  local rc=$?
  if $started_gateway; then bash ci/local/gateway.sh stop >&2 || log "ci/local/gateway.sh stop failed"; fi
  system_cleanup "$rc"
}
trap cleanup EXIT

# Runs a driver that prints its own ok/FAIL lines and adds them to the counts; a driver that fails without
# a FAIL line (a crash) counts as one failure.
# shellcheck source=ci/tests/lib/counted.sh
source ci/tests/lib/counted.sh

system_up
mkdir -p "$OUT"
export PYTHONDONTWRITEBYTECODE=1 PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
counted "bad input" python3 ci/tests/robustness/bad_input.py

started_gateway=true
setup "ci/local/gateway.sh start" bash ci/local/gateway.sh start >&2
counted "fuzzing" python3 ci/tests/robustness/fuzz.py docs/openapi.yaml "http://127.0.0.1:$((18080 + NEWSFEED_PORT_OFFSET))" "$OUT"

echo "robustness: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
