# The running system for the suites that need one (sourced): a store stack (the shared one of ci/tests/run.sh named by
# NEWSFEED_STACK_ENV, else one started here), the service jars, and the five services on NEWSFEED_PORT_OFFSET.
# The caller sets NEWSFEED_RUN and NEWSFEED_PORT_OFFSET, defines `passed`, `failed`, `log` and the suite name
# SUITE, and calls `system_up`; `system_down` (an EXIT trap) stops what was started here.
# shellcheck shell=bash disable=SC2154   # passed, failed and SUITE belong to the sourcing suite

started_stack=false started_services=false
# shellcheck source=ci/tests/lib/run_dir.sh
source ci/tests/lib/run_dir.sh

# The end of a suite on the system (from its EXIT trap, with the exit status): stop what it started, remove the
# run dir when everything passed, else keep it for its logs.
system_cleanup() {
  local rc=$1
  system_down
  if [ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]; then rm -rf "$NEWSFEED_RUN"; else log "kept run dir $NEWSFEED_RUN (logs, reports)"; fi
}

system_down() {
  if $started_services; then bash ci/local/services.sh stop >/dev/null 2>&1 || log "ci/local/services.sh stop failed"; fi
  if $started_stack; then bash ci/local/stack.sh down >/dev/null 2>&1 || log "ci/local/stack.sh down failed"; fi
}

# A setup step that fails counts as one failed test, so the suite never reports "0 failed" after an error.
setup() {
  local what=$1; shift
  if ! "$@"; then
    log "setup failed: $what"
    echo "$SUITE: $passed passed, $((failed + 1)) failed"
    exit 1
  fi
}

jars_fresh() {
  local s jar
  for s in social-graph outbound inbound search edge; do
    jar=services/$s/target/$s.jar
    [ -f "$jar" ] || return 1
    # a source newer than its jar means the jar is stale
    [ -z "$(find services/common/src services/$s/src services/pom.xml services/$s/pom.xml -newer "$jar" -print -quit)" ] || return 1
  done
}

system_up() {
  mkdir -p "$NEWSFEED_RUN"
  chmod 755 "$NEWSFEED_RUN"   # PostgreSQL runs as the postgres user and must reach its data dir
  if [ -n "${NEWSFEED_STACK_ENV:-}" ]; then
    [ -f "$NEWSFEED_STACK_ENV" ] || setup "NEWSFEED_STACK_ENV=$NEWSFEED_STACK_ENV exists" false
    log "using the stack of $NEWSFEED_STACK_ENV"
  else
    log "starting a stack in $NEWSFEED_RUN (port offset $NEWSFEED_PORT_OFFSET)"
    started_stack=true
    setup "ci/local/stack.sh up" bash ci/local/stack.sh up >&2
    export NEWSFEED_STACK_ENV=$NEWSFEED_RUN/stack.env
  fi
  if ! jars_fresh; then
    log "building the service jars"
    setup "build" "${MVN[@]}" -f services/pom.xml install -DskipTests
  fi
  log "starting the services"
  started_services=true
  setup "ci/local/services.sh start" bash ci/local/services.sh start >&2
  # the endpoints every test reads: the stores' from stack.env, the services' from ci/local/services.sh
  set -a
  # shellcheck source=/dev/null
  source "$NEWSFEED_STACK_ENV"
  eval "$(bash ci/local/services.sh urls)"
  set +a
}
