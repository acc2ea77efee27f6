# Local mode of ci/bench/experiment.sh (sourced): N instances of the service as local JVMs (ci/local/services.sh with
# SERVICE_INSTANCES), the nginx gateway balancing over them (ci/local/gateway.sh), k6 through the gateway
# (ci/bench/load.sh) remote-writing to the local Prometheus (ci/local/prometheus.sh). For inbound/search each instance is
# one more consumer in the Kafka group (6 partitions).
# Uses the runner's globals (SERVICE, SCENARIO, RATE, DURATION, DURATION_S, K6_ENV, OUT, SETTLE) and sets
# RUN_K6_START, RUN_T0, RUN_T1, RUN_EXIT, RUN_DIR for each run.
# shellcheck shell=bash disable=SC2034   # RUN_* and PROMETHEUS_URL are read by ci/bench/experiment.sh

OFFSET=${NEWSFEED_PORT_OFFSET:-0}
GATEWAY_URL=http://127.0.0.1:$((18080 + OFFSET))
started_services=false started_gateway=false started_prometheus=false sampler_pid='' load_pid='' count_before=0

# SERVICE_INSTANCES of the caller (other services' counts are kept) with this service at $1
instances_setting() {
  local pair out=""
  for pair in ${BASE_INSTANCES:-}; do [ "${pair%%=*}" = "$SERVICE" ] || out+="$pair "; done
  echo "${out}$SERVICE=$1"
}

# instances of the service running now (any count up to 9, whatever SERVICE_INSTANCES started them)
running_instances() {
  local table
  table=$(SERVICE_INSTANCES=$(instances_setting 9) bash ci/local/services.sh status 2>/dev/null || true)
  awk -v s="$SERVICE" '$1 ~ "^"s"-[0-9]+$" && $2 == "running"' <<< "$table" | wc -l
}

mode_prepare() {
  BASE_INSTANCES=${SERVICE_INSTANCES:-}
  local env_file=${NEWSFEED_STACK_ENV:-${NEWSFEED_RUN:-$PWD/.run}/stack.env}
  [ -f "$env_file" ] || die "no store stack: $env_file is missing (ci/local/stack.sh up, or set NEWSFEED_STACK_ENV)"
  [ -x "${K6:-$HOME/.cache/newsfeed/bin/k6}" ] || die "k6 is missing (bash ci/local/tools.sh all)"
  if [ "$(SERVICE_INSTANCES=$BASE_INSTANCES bash ci/local/services.sh status >/dev/null 2>&1; echo $?)" != 0 ]; then
    started_services=true   # not every service runs: we start them and stop them at the end
  else
    count_before=$(running_instances)   # they run: the service goes back to this count at the end
  fi
  if ! bash ci/local/prometheus.sh status >/dev/null 2>&1; then
    started_prometheus=true
    bash ci/local/prometheus.sh start || die "ci/local/prometheus.sh start failed"
  fi
  PROMETHEUS_URL=${PROMETHEUS_URL:-http://127.0.0.1:$((19090 + OFFSET))}
  bash ci/local/gateway.sh status | grep '^gateway running' > /dev/null || started_gateway=true
}

# Scales the service to $1 instances: starts the missing ones; fewer than now means a graceful stop of all
# and a fresh start (ci/local/services.sh stops whole runs only), then the gateway balances over the new set.
mode_scale() {
  local n=$1 now
  now=$(running_instances)
  export SERVICE_INSTANCES; SERVICE_INSTANCES=$(instances_setting "$n")
  if [ "$now" -gt "$n" ]; then
    log "scaling $SERVICE down from $now to $n: restarting the services"
    bash ci/local/services.sh stop >&2
  fi
  local t=$SECONDS
  bash ci/local/services.sh start >&2 || die "ci/local/services.sh start failed (SERVICE_INSTANCES=$SERVICE_INSTANCES)"
  log "$SERVICE: $n instance(s) ready ($((SECONDS - t))s); ports $(bash ci/local/services.sh ports "$SERVICE" | tr '\n' ' ')"
  bash ci/local/gateway.sh reload >&2 || die "ci/local/gateway.sh reload failed"
  ensure_scraped
}

# Every instance's port in the local Prometheus' config (it is generated at start from SERVICE_INSTANCES).
scrapes_all_instances() {
  local cfg=${NEWSFEED_RUN:-$PWD/.run}/prometheus/prometheus.yml port
  [ -f "$cfg" ] || return 1
  for port in $(bash ci/local/services.sh ports "$SERVICE"); do grep -q "127.0.0.1:$port" "$cfg" || return 1; done
}
ensure_scraped() {
  scrapes_all_instances && return 0
  log "the local Prometheus does not scrape every $SERVICE instance: restarting it (its data stays)"
  bash ci/local/prometheus.sh stop >&2 || true
  bash ci/local/prometheus.sh start >&2 || die "ci/local/prometheus.sh start failed"
  scrapes_all_instances \
    || log "WARNING: ci/local/prometheus.sh does not scrape every instance of SERVICE_INSTANCES: service-side numbers cover only the scraped ones"
}

# shellcheck source=ci/bench/experiment/host_cpu.sh
source ci/bench/experiment/host_cpu.sh

# One k6 run of the scenario through the gateway; $1 = test id, $2 = run dir for its files.
mode_run() {
  local testid=$1 dir=$2 reports
  RUN_DIR=$dir
  reports=${NEWSFEED_RUN:-$PWD/.run}/reports/$testid
  start_sampler "$dir/host-cpu.txt"
  RUN_K6_START=$(date +%s.%N)
  RUN_EXIT=0
  # in a session of its own, waited for: an interrupted runner stops k6 and its children (stop_load)
  setsid env TESTID="$testid" BASE_URL="$GATEWAY_URL" PROMETHEUS_URL="$PROMETHEUS_URL" RATE="$RATE" DURATION="$DURATION" \
    "${K6_ENV[@]}" bash ci/bench/load.sh "$SCENARIO" -q > "$dir/k6.out" 2>&1 < /dev/null &
  load_pid=$!
  wait "$load_pid" || RUN_EXIT=$?
  load_pid=
  local wall_end; wall_end=$(date +%s.%N)
  stop_sampler
  cp "$reports/summary.json" "$reports/summary.txt" "$dir/" 2>/dev/null || true
  # the load ends when the k6 test run ends (setup included in testRunDurationMs); the window is its last D s
  local run_ms
  run_ms=$(jq -r '.state.testRunDurationMs // empty' "$dir/summary.json" 2>/dev/null || true)
  if [ -n "$run_ms" ]; then
    RUN_T1=$(awk -v s="$RUN_K6_START" -v ms="$run_ms" 'BEGIN { printf "%.3f", s + ms / 1000 }')
  else
    RUN_T1=$wall_end
  fi
  RUN_T0=$(awk -v e="$RUN_T1" -v d="$DURATION_S" 'BEGIN { printf "%.3f", e - d }')
}

# a k6 run still going (the runner was interrupted): its whole process group, gracefully first
stop_load() {
  [ -n "$load_pid" ] || return 0
  kill -TERM -- "-$load_pid" 2>/dev/null || true
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 -- "-$load_pid" 2>/dev/null || break; sleep 0.5; done
  kill -KILL -- "-$load_pid" 2>/dev/null || true
  log "stopped the k6 run in progress"
  load_pid=
}

mode_cleanup() {
  stop_load
  stop_sampler
  if $started_services; then bash ci/local/services.sh stop >&2 || log "ci/local/services.sh stop failed"; fi
  if ! $started_services && [ "$count_before" -gt 0 ] && [ "$(running_instances)" != "$count_before" ]; then
    log "restoring $SERVICE to the $count_before instance(s) that ran before"
    (mode_scale "$count_before") || log "WARNING: could not restore $SERVICE to $count_before instance(s)"
  fi
  if $started_gateway; then bash ci/local/gateway.sh stop >&2 || log "ci/local/gateway.sh stop failed"; fi
  if $started_prometheus; then bash ci/local/prometheus.sh stop >&2 || log "ci/local/prometheus.sh stop failed"; fi
  if ! $started_services && [ "$count_before" -gt 0 ]; then
    log "services were running before: left running, $SERVICE at $(running_instances) instance(s)"
  fi
}
