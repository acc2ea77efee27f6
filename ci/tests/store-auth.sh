#!/usr/bin/env bash
# Suite "store-auth": the stores with authentication, for real. A local stack with NEWSFEED_STACK_AUTH=true (Kafka
# SASL/SCRAM with the StandardAuthorizer, Cassandra's PasswordAuthenticator and CassandraAuthorizer, Solr's basic
# auth), then for each of those stores ci/tests/store-auth/<store>.sh: the chart's own schema-Job script
# (charts/newsfeed/files/init/<store>.*) gives each service its user as the Job does, and real clients prove what each
# user may and may not do. Last, the services run each with its own users (not the admins) and a post goes through
# outbound, fan-out and the index (ci/tests/store-auth/services.sh).
# Usage: ci/tests/store-auth.sh   (NEWSFEED_PORT_OFFSET defaults to 2400)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-2400}
export NEWSFEED_STACK_AUTH=true
# shellcheck source=ci/tests/lib/run_dir.sh
source ci/tests/lib/run_dir.sh
suite_run_dir store-auth-test
unset NEWSFEED_STACK_ENV
STACK_ENV=$NEWSFEED_RUN/stack.env
export STACK_ENV

passed=0 failed=0
cleanup() {
  local rc=$?
  ci/local/services.sh stop >/dev/null 2>&1 || true
  ci/local/prometheus.sh stop >/dev/null 2>&1 || true   # the solr part's, should it stop short
  ci/local/stack.sh down >/dev/null 2>&1 || true
  if [ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]; then rm -rf "$NEWSFEED_RUN"; else echo "kept run dir $NEWSFEED_RUN" >&2; fi
}
trap cleanup EXIT

count() {  # count LOG: adds the ok/FAIL lines of a part to the suite's count
  # without colour codes first: a tool's stderr (Maven's, on a cold cache) can end in them with no newline, and the
  # next ok line would then not start the line
  local plain
  plain=$(sed 's/\x1b\[[0-9;]*m//g' "$1")
  passed=$((passed + $(grep -c '^ok - ' <<< "$plain" || true)))
  failed=$((failed + $(grep -c '^FAIL - ' <<< "$plain" || true)))
}
# part NAME: runs ci/tests/store-auth/NAME.sh (its ok/FAIL lines count); a part that fails without a FAIL line counts one
part() {
  local log=$NEWSFEED_RUN/part-$1.log rc=0
  bash "ci/tests/store-auth/$1.sh" 2>&1 | tee "$log" || rc=$?
  count "$log"
  if [ "$rc" -ne 0 ] && ! grep -q '^FAIL - ' "$log"; then failed=$((failed + 1)); echo "FAIL - $1: exited $rc"; fi
}

start=$SECONDS
if ci/local/stack.sh up; then
  passed=$((passed + 1)); echo "ok - stack up with NEWSFEED_STACK_AUTH=true"
  for p in kafka cassandra solr services; do
    [ -f "ci/tests/store-auth/$p.sh" ] && part "$p"
  done
else
  failed=$((failed + 1)); echo "FAIL - stack up with NEWSFEED_STACK_AUTH=true"
fi
echo "# suite took $((SECONDS - start)) s"
echo "store-auth: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
