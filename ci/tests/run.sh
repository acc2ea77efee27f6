#!/usr/bin/env bash
# Runs every test suite (or the ones named: ci/tests/run.sh lint charts ...) and prints one closing line
# `N passed, N failed` summed over the suites. Each suite is ci/tests/<suite>.sh and ends with
# `<suite>: N passed, N failed`. Suites that need stores share one local stack started here.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
RUN_START=$(date +%s)

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

needs_stack=false last_stack_suite="" stack_pid=""
for s in "${suites[@]}"; do [[ $STACK_SUITES == *" $s "* ]] && needs_stack=true last_stack_suite=$s; done
cleanup() {
  local p
  # side-by-side suites still running when the run stops short: each suite's script, then its wrapper
  for p in ${side_pids[@]+"${side_pids[@]}"}; do pkill -TERM -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  [ -z "$stack_pid" ] || wait "$stack_pid" 2>/dev/null || true
  stack_pid=""
  if [ "${started_stack:-false}" = true ]; then
    NEWSFEED_RUN=$NEWSFEED_RUN/shared-stack NEWSFEED_PORT_OFFSET=$STACK_OFFSET bash ci/local/stack.sh down || true
    started_stack=false
    unset NEWSFEED_STACK_ENV
  fi
}
trap cleanup EXIT
STACK_OFFSET=${NEWSFEED_TEST_STACK_OFFSET:-300}
if $needs_stack && [ -z "${NEWSFEED_STACK_ENV:-}" ]; then
  # one stack of real stores for all suites that need one, starting while the suites before the first of them run
  # (a minute or more, mostly waiting for JVMs); the stack suite starts its own to test up/down
  started_stack=true
  NEWSFEED_RUN=$NEWSFEED_RUN/shared-stack NEWSFEED_PORT_OFFSET=$STACK_OFFSET bash ci/local/stack.sh up \
    > "$NEWSFEED_RUN/logs/shared-stack.log" 2>&1 < /dev/null &
  stack_pid=$!
fi
# shared_stack_ready: the shared stack is up (its start's output shown once); fails when it did not start
shared_stack_ready() {
  if [ -n "$stack_pid" ]; then
    local rc=0
    wait "$stack_pid" || rc=$?
    stack_pid=""
    echo "=== the shared stack (log: $NEWSFEED_RUN/logs/shared-stack.log)"
    cat "$NEWSFEED_RUN/logs/shared-stack.log"
    # a start that failed may have left some of its stores running
    if [ "$rc" -ne 0 ]; then cleanup; return 1; fi
    export NEWSFEED_STACK_ENV=$NEWSFEED_RUN/shared-stack/stack.env
  fi
  [ -n "${NEWSFEED_STACK_ENV:-}" ]
}
# suites that need no store and time nothing run side by side when they follow each other in the list: release and
# charts keep about one core busy each, observability mostly waits the three minutes of its real Prometheus
SIDE_BY_SIDE=" lint release observability charts "

total_passed=0 total_failed=0 failed_suites=() side_pids=()
# count_suite NAME RC SECONDS: add the suite's `NAME: N passed, N failed` line (from its log) to the run's counts
count_suite() {
  local s=$1 rc=$2 took=$3 log=$NEWSFEED_RUN/logs/$1.log line passed=0 failed=0
  # colour codes a tool left at the start of the line must not hide the count
  line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E "^$s: [0-9]+ passed, [0-9]+ failed" | tail -n 1 || true)
  if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then passed=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]}; fi
  # a suite that exits non-zero without counting a failure still fails the run
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  if [ "$rc" -eq 0 ] && [ "$passed" -eq 0 ]; then echo "suite $s ran no test" >&2; failed=$((failed + 1)); fi
  [ "$failed" -eq 0 ] || failed_suites+=("$s")
  total_passed=$((total_passed + passed)); total_failed=$((total_failed + failed))
  echo "=== suite $s: rc=$rc, $passed passed, $failed failed, ${took}s"
}
# run_side_by_side NAME...: the suites at once, each into its own log, shown in order once it has ended
run_side_by_side() {
  local s start; start=$(date +%s)
  echo "=== suites $* side by side (logs: $NEWSFEED_RUN/logs/<suite>.log)"
  side_pids=()
  for s in "$@"; do
    rm -f "$NEWSFEED_RUN/logs/$s.rc" "$NEWSFEED_RUN/logs/$s.end"
    ( set +e; bash "ci/tests/$s.sh" > "$NEWSFEED_RUN/logs/$s.log" 2>&1 < /dev/null
      echo $? > "$NEWSFEED_RUN/logs/$s.rc"; date +%s > "$NEWSFEED_RUN/logs/$s.end" ) &
    side_pids+=($!)
  done
  for s in "$@"; do
    wait "${side_pids[0]}" || true
    side_pids=("${side_pids[@]:1}")
    echo "=== suite $s (log: $NEWSFEED_RUN/logs/$s.log)"
    cat "$NEWSFEED_RUN/logs/$s.log"
    count_suite "$s" "$(cat "$NEWSFEED_RUN/logs/$s.rc" 2>/dev/null || echo 1)" \
      "$(( $(cat "$NEWSFEED_RUN/logs/$s.end" 2>/dev/null || date +%s) - start ))"
  done
}
run_suite() {
  local s=$1 script=ci/tests/$1.sh log=$NEWSFEED_RUN/logs/$1.log start rc
  echo "=== suite $s (log: $log)"
  start=$(date +%s)
  set +e
  bash "$script" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  count_suite "$s" "$rc" "$(( $(date +%s) - start ))"
}

i=0
while [ "$i" -lt ${#suites[@]} ]; do
  s=${suites[$i]}
  if [ ! -f "ci/tests/$s.sh" ]; then
    echo "no such suite: $s" >&2; failed_suites+=("$s"); total_failed=$((total_failed + 1)); i=$((i + 1)); continue
  fi
  # the run of side-by-side suites that starts here (the named ones that follow each other in the list)
  batch=()
  while [ $((i + ${#batch[@]})) -lt ${#suites[@]} ] && [[ $SIDE_BY_SIDE == *" ${suites[$((i + ${#batch[@]}))]} "* ]]; do
    batch+=("${suites[$((i + ${#batch[@]}))]}")
  done
  if [ ${#batch[@]} -gt 1 ]; then
    run_side_by_side "${batch[@]}"; i=$((i + ${#batch[@]}))
  else
    if [[ $STACK_SUITES == *" $s "* ]] && ! shared_stack_ready; then
      echo "=== suite $s: not run, the shared stack of stores did not start" >&2
      rm -f "$NEWSFEED_RUN/logs/$s.log"
      failed_suites+=("$s"); total_failed=$((total_failed + 1))
    else
      run_suite "$s"
    fi
    i=$((i + 1))
  fi
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
echo "=== the run took $(( $(date +%s) - RUN_START ))s"
echo "${total_passed} passed, ${total_failed} failed"
[ "$total_failed" -eq 0 ]
