#!/usr/bin/env bash
# Suite "e2e": the integration tests of inbound and search (their consumers against real Kafka, Cassandra and
# Solr) and the end-to-end test through the four running services: participants, friendships, a post, and
# within a bounded wait the post in every friend's inbound exactly once, in the outbound and in search.
#
# Uses the stack named by NEWSFEED_STACK_ENV (ci/test.sh shares one), else starts its own with `ci/stack.sh up`
# in a fresh run dir. Builds the jars if missing, starts the services (`ci/services.sh start`) on
# NEWSFEED_PORT_OFFSET (default 700), and stops everything it started on exit.
# Last line: `e2e: N passed, N failed` (JUnit tests of the inbound/search modules and of services/e2e).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-700}
RUN_DIR=$(mktemp -d /tmp/newsfeed-e2e.XXXXXX)
chmod 755 "$RUN_DIR"   # PostgreSQL runs as the postgres user and must reach its data dir
export NEWSFEED_RUN=$RUN_DIR
MVN=(mvn -B -ntp)
[ "${CI:-}" = true ] || MVN+=(-q)

passed=0 failed=0
started_stack=false started_services=false
log() { echo "[e2e $(date +%T)] $*" >&2; }

cleanup() {
  local rc=$?
  if $started_services; then bash ci/services.sh stop >/dev/null 2>&1 || log "ci/services.sh stop failed"; fi
  if $started_stack; then bash ci/stack.sh down >/dev/null 2>&1 || log "ci/stack.sh down failed"; fi
  if [ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]; then rm -rf "$RUN_DIR"; else log "kept run dir $RUN_DIR (logs)"; fi
}
trap cleanup EXIT

# A setup step that fails counts as one failed test, so the suite never reports "0 failed" after an error.
setup() {
  local what=$1; shift
  if ! "$@"; then
    log "setup failed: $what"
    echo "e2e: $passed passed, $((failed + 1)) failed"
    exit 1
  fi
}

if [ -n "${NEWSFEED_STACK_ENV:-}" ]; then
  [ -f "$NEWSFEED_STACK_ENV" ] || { log "NEWSFEED_STACK_ENV=$NEWSFEED_STACK_ENV does not exist"; echo "e2e: 0 passed, 1 failed"; exit 1; }
  log "using the stack of $NEWSFEED_STACK_ENV"
else
  log "starting a stack in $RUN_DIR (port offset $NEWSFEED_PORT_OFFSET)"
  started_stack=true
  setup "ci/stack.sh up" bash ci/stack.sh up >&2
  export NEWSFEED_STACK_ENV=$RUN_DIR/stack.env
fi

jars_present() {
  local s
  for s in social-graph outbound inbound search; do
    compgen -G "services/$s/target/*.jar" >/dev/null || return 1
  done
}
if ! jars_present; then
  log "building the service jars"
  setup "build" "${MVN[@]}" -f services/pom.xml package -DskipTests
fi

log "starting the services"
started_services=true
setup "ci/services.sh start" bash ci/services.sh start >&2

# the endpoints every test reads: the stores' from stack.env, the services' from the port offset
set -a
# shellcheck source=/dev/null
source "$NEWSFEED_STACK_ENV"
set +a
export SOCIAL_GRAPH_URL=http://127.0.0.1:$((18081 + NEWSFEED_PORT_OFFSET))
export OUTBOUND_URL=http://127.0.0.1:$((18082 + NEWSFEED_PORT_OFFSET))
export INBOUND_URL=http://127.0.0.1:$((18083 + NEWSFEED_PORT_OFFSET))
export SEARCH_URL=http://127.0.0.1:$((18084 + NEWSFEED_PORT_OFFSET))

# Adds the counts of the JUnit XML reports in a directory to passed/failed.
count_reports() {
  local dir=$1 f tests failures errors skipped
  for f in "$dir"/TEST-*.xml; do
    [ -f "$f" ] || continue
    read -r tests failures errors skipped < <(sed -n 's/.*<testsuite[^>]* tests="\([0-9]*\)"[^>]* errors="\([0-9]*\)"[^>]* skipped="\([0-9]*\)"[^>]* failures="\([0-9]*\)".*/\1 \4 \2 \3/p' "$f" | head -n 1)
    if [ -z "${tests:-}" ]; then
      log "unreadable report $f"
      failed=$((failed + 1))
      continue
    fi
    # a skipped test is not a pass: ITs must not skip
    passed=$((passed + tests - failures - errors - skipped))
    failed=$((failed + failures + errors + skipped))
  done
}

# `run_maven NAME REPORT_DIRS... -- MAVEN ARGS`: a Maven run whose JUnit reports are counted; a run that fails
# without a failed test (compilation, a crashed fork) counts as one failure.
run_maven() {
  local name=$1; shift
  local dirs=()
  while [ "$1" != -- ]; do dirs+=("$1"); shift; done
  shift
  local d before=$failed rc=0
  for d in "${dirs[@]}"; do rm -rf "$d"; done
  log "running $name"
  "${MVN[@]}" "$@" || rc=$?
  for d in "${dirs[@]}"; do count_reports "$d"; done
  if [ "$rc" -ne 0 ] && [ "$failed" -eq "$before" ]; then
    log "$name: maven failed (rc $rc) without a failed test"
    failed=$((failed + 1))
  fi
}

for module in inbound search; do
  run_maven "$module tests" services/$module/target/surefire-reports services/$module/target/failsafe-reports -- \
    -f services/$module/pom.xml verify
done
run_maven "end-to-end test" services/e2e/target/failsafe-reports -- -f services/e2e/pom.xml verify

echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
