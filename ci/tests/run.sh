#!/usr/bin/env bash
# Runs every test suite (or the ones named: ci/tests/run.sh lint charts ...) and prints one closing line
# `N passed, N failed` summed over the suites. Each suite is ci/tests/<suite>.sh and ends with
# `<suite>: N passed, N failed`. Suites that need stores share one local stack started here.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

# offline checks first (fast feedback), then the suites on real stores; faults late (it stops and starts stores), then
# cluster (a real Kubernetes node: machine-wide bridges, routes and iptables rules)
ALL_SUITES=(lint release observability charts stack lifecycle services e2e load robustness tracing experiment store-auth faults cluster)
# these share one stack started here, stopped after the last of them; stack, lifecycle, store-auth and faults start
# their own (they stop or restart stores, or need stores with authentication)
STACK_SUITES=" services e2e load robustness tracing experiment "
suites=("$@"); [ ${#suites[@]} -gt 0 ] || suites=("${ALL_SUITES[@]}")

export NEWSFEED_RUN=${NEWSFEED_RUN:-$ROOT/.run/test}
mkdir -p "$NEWSFEED_RUN/logs"
PATH="$(bash ci/local/tools.sh all | tail -n 1):$PATH"
export PATH

needs_stack=false last_stack_suite=""
for s in "${suites[@]}"; do [[ $STACK_SUITES == *" $s "* ]] && needs_stack=true last_stack_suite=$s; done
cleanup() {
  if [ "${started_stack:-false}" = true ]; then
    NEWSFEED_RUN=$NEWSFEED_RUN/shared-stack NEWSFEED_PORT_OFFSET=$STACK_OFFSET bash ci/local/stack.sh down || true
    started_stack=false
    unset NEWSFEED_STACK_ENV
  fi
}
trap cleanup EXIT
STACK_OFFSET=${NEWSFEED_TEST_STACK_OFFSET:-300}
if $needs_stack && [ -z "${NEWSFEED_STACK_ENV:-}" ]; then
  # one stack of real stores for all suites that need one; the stack suite starts its own to test up/down
  started_stack=true
  NEWSFEED_RUN=$NEWSFEED_RUN/shared-stack NEWSFEED_PORT_OFFSET=$STACK_OFFSET bash ci/local/stack.sh up
  export NEWSFEED_STACK_ENV=$NEWSFEED_RUN/shared-stack/stack.env
fi

total_passed=0 total_failed=0 failed_suites=()
for s in "${suites[@]}"; do
  script=ci/tests/$s.sh
  if [ ! -f "$script" ]; then echo "no such suite: $s" >&2; failed_suites+=("$s"); total_failed=$((total_failed + 1)); continue; fi
  log=$NEWSFEED_RUN/logs/$s.log
  echo "=== suite $s (log: $log)"
  start=$(date +%s)
  set +e
  bash "$script" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  # colour codes a tool left at the start of the line must not hide the count
  line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E "^$s: [0-9]+ passed, [0-9]+ failed" | tail -n 1 || true)
  passed=0 failed=0
  if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then passed=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]}; fi
  # a suite that exits non-zero without counting a failure still fails the run
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  if [ "$rc" -eq 0 ] && [ "$passed" -eq 0 ]; then echo "suite $s ran no test" >&2; failed=$((failed + 1)); fi
  [ "$failed" -eq 0 ] || failed_suites+=("$s")
  total_passed=$((total_passed + passed)); total_failed=$((total_failed + failed))
  echo "=== suite $s: rc=$rc, $passed passed, $failed failed, $(( $(date +%s) - start ))s"
  # the shared stores stop once no suite after this one needs them: the rest of the run has the CPU and memory
  [ "$s" != "$last_stack_suite" ] || cleanup
done

# stop the shared stack first, so the count below is the run's last line
cleanup
trap - EXIT
# each failed check again, with the lines its suite printed just before it (a check says why on stderr), so the end of
# a long run's output is enough to see what failed
for s in "${failed_suites[@]}"; do
  [ -f "$NEWSFEED_RUN/logs/$s.log" ] || continue
  echo "--- $s: failed checks (log: $NEWSFEED_RUN/logs/$s.log)"
  # or, when it stopped without a FAIL line, its last lines
  sed 's/\x1b\[[0-9;]*m//g' "$NEWSFEED_RUN/logs/$s.log" | grep -B6 -E '^FAIL' | tail -n 60 ||
    tail -n 20 "$NEWSFEED_RUN/logs/$s.log"
done
[ ${#failed_suites[@]} -eq 0 ] || echo "failed suites: ${failed_suites[*]}"
echo "${total_passed} passed, ${total_failed} failed"
[ "$total_failed" -eq 0 ]
