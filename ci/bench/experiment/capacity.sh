# Capacity search of ci/bench/experiment.sh --capacity (sourced; the options are in its usage). For each replica count:
# scale (mode_scale of local.sh / cluster.sh), warm up, then k6 steps of --step at an offered open-loop rate, each
# measured from Prometheus over exactly its load window (measure.py through the runner's measure_run) and judged
# against the objective (capacity_search.py judge); capacity_search.py next picks the next rate from the steps so
# far (grow while they hold, shrink while they break, then bisect) until the gap between the highest rate that held
# and the lowest that broke is within --resolution. In local mode each step also records every process's CPU
# (cpu_split.py), for the busiest component. At the end capacity_report.py writes the tables and the charts.
# Uses the runner's globals and functions (mode_*, measure_run, warmup_run, warn_unscraped, testid_of, log, die).
# shellcheck shell=bash disable=SC2034   # RATE, DURATION, THROUGHPUT, ... are the runner's

cpu_watch_pid=""

# validates the capacity options and fills in the defaults of the usage (before mode_prepare)
capacity_settings() {
  [ -z "$RATE$DURATION" ] || die "--rate and --duration are the fixed-rate mode's: the capacity search takes --start-rate and --step"
  local opt
  for opt in "slo-ms:$SLO_MS" "max-error-ratio:$MAX_ERROR_RATIO" "max-dropped:$MAX_DROPPED" "resolution:$RESOLUTION" \
             "start-rate:$START_RATE" "next-fraction:$NEXT_FRACTION" "growth:$GROWTH" "max-rate:$MAX_RATE" "min-rate:$MIN_RATE"; do
    [ -z "${opt#*:}" ] || is_number "${opt#*:}" || die "--${opt%%:*} must be a number"
  done
  awk -v g="$GROWTH" -v lo="$MIN_RATE" -v hi="$MAX_RATE" -v r="$RESOLUTION" -v f="$NEXT_FRACTION" \
    'BEGIN { exit !(g > 1 && lo > 0 && hi >= lo && r > 0 && f > 0) }' \
    || die "need --growth > 1, 0 < --min-rate <= --max-rate, --resolution > 0 and --next-fraction > 0"
  [[ $MAX_STEPS =~ ^[1-9][0-9]*$ ]] || die "--max-steps must be a positive integer"
  seconds_of "$STEP" >/dev/null || die "--step '$STEP' is not a k6 duration (e.g. 30s)"
  [ "$WARMUP" != - ] || WARMUP=20s
  THROUGHPUT=${THROUGHPUT:-http}
  if [ -z "$SLO_MS" ]; then
    if [ "$THROUGHPUT" = events ]; then SLO_MS=2000; elif [ "$SERVICE" = inbound ]; then SLO_MS=20; else SLO_MS=50; fi
  fi
  if [ -z "$SCENARIO" ]; then
    # k6/experiment.js loading the service under test only; the user's --env come after and win
    SCENARIO=experiment
    local defaults
    case $SERVICE:$THROUGHPUT in
      inbound:http | inbound:api) defaults=(PREFILL_POSTS=2) ;;
      search:http | search:api) defaults=(SEARCH_SHARE=1 INBOUND_SHARE=0 PREFILL_POSTS=0 PREFILL_TIMEOUT_S=0) ;;
      *) defaults=(POST_SHARE=1 INBOUND_SHARE=0 PREFILL_POSTS=0 PREFILL_TIMEOUT_S=0) ;;
    esac
    K6_ENV=(PARTICIPANTS=200 FRIENDS=10 CHECK_EVERY=10 "${defaults[@]}" "${K6_ENV[@]}")
  fi
  # k6/experiment.js waits --pad (> 1 scrape) between setup and the load: the window's first sample then falls
  # after setup (none of its requests counted) and the fan-out of the prefilled posts has had time to settle
  [ "$SCENARIO" != experiment ] || K6_ENV=("START_DELAY=${PAD}s" "${K6_ENV[@]}")
  local kv
  LOAD_DELAY_S=0
  for kv in "${K6_ENV[@]}"; do
    [[ $kv != START_DELAY=* ]] || [ "$SCENARIO" != experiment ] || LOAD_DELAY_S=$(seconds_of "${kv#*=}") \
      || die "START_DELAY '${kv#*=}' is not a k6 duration"
  done
  RATE=$START_RATE DURATION=$STEP
  TITLE=${TITLE:-"$SERVICE capacity ($MODE, $SCENARIO, p95 ≤ $SLO_MS ms)"}
}

# Local mode: the CPU of every process of this run over a step's load, from when k6's setup logs its last line (and
# START_DELAY after it) to 2 s before the load ends (as ci/bench/experiment/benchmarks.sh does), into $2/cpu-split.json.
# shellcheck source=ci/bench/experiment/cpu_dirs.sh
source ci/bench/experiment/cpu_dirs.sh
cpu_watch_start() {
  local klog=$NEWSFEED_RUN/reports/$1/k6.log dir=$2 dirs
  mapfile -t dirs < <(cpu_dirs)
  ( until grep -q 'setup: ' "$klog" 2>/dev/null; do sleep 0.2; done
    sleep "$LOAD_DELAY_S"
    end=$((SECONDS + ${DURATION_S%.*} - 2))
    python3 ci/bench/experiment/cpu_split.py snapshot "$dir/cpu-before.json" "${dirs[@]}"
    sleep $((end > SECONDS ? end - SECONDS : 0))
    python3 ci/bench/experiment/cpu_split.py snapshot "$dir/cpu-after.json" "${dirs[@]}" ) &
  cpu_watch_pid=$!
}
cpu_watch_stop() {
  [ -n "$cpu_watch_pid" ] || return 0
  pkill -P "$cpu_watch_pid" 2>/dev/null || true
  kill "$cpu_watch_pid" 2>/dev/null || true
  wait "$cpu_watch_pid" 2>/dev/null || true
  cpu_watch_pid=""
  local dir=${1:-} dirs
  [ -n "$dir" ] && [ -f "$dir/cpu-before.json" ] || return 0
  mapfile -t dirs < <(cpu_dirs)
  [ -f "$dir/cpu-after.json" ] || python3 ci/bench/experiment/cpu_split.py snapshot "$dir/cpu-after.json" "${dirs[@]}"
  python3 ci/bench/experiment/cpu_split.py diff "$dir/cpu-before.json" "$dir/cpu-after.json" > "$dir/cpu-split.json" || true
}

# One step of count $1, number $2, at RATE: run, measure, judge; appends the judged step to steps.jsonl.
capacity_step() {
  local n=$1 k=$2 dir=$OUT/runs/$1/step-$2 testid split=()
  testid=$(testid_of "$n" "s$k")
  mkdir -p "$dir"
  log "$SERVICE x $n, step $k: $RATE it/s for $STEP (testid $testid)"
  [ "$MODE" != local ] || cpu_watch_start "$testid" "$dir"
  mode_run "$testid" "$dir"
  [ "$MODE" != local ] || cpu_watch_stop "$dir"
  measure_run "$testid" "$dir"
  warn_unscraped "$n" "$dir/measure.json"
  [ -f "$dir/cpu-split.json" ] && split=(--cpu-split "$dir/cpu-split.json")
  python3 ci/bench/experiment/capacity_search.py judge "$dir/measure.json" --replicas "$n" --step "$k" --offered "$RATE" \
      --duration "$DURATION_S" --k6-exit "$RUN_EXIT" --kind "$THROUGHPUT" --slo-ms "$SLO_MS" \
      --max-error-ratio "$MAX_ERROR_RATIO" --max-dropped "$MAX_DROPPED" "${split[@]}" >> "$OUT/steps.jsonl" \
    || die "judging step $k of $SERVICE x $n failed"
  log "$(tail -n 1 "$OUT/steps.jsonl" | jq -r '"  achieved \(.achieved)/s, p95 \(.objective_p95_ms) ms, errors \(.errors),"
    + " dropped \(.dropped_iterations): " + (if .held then "held" else "broke (\(.broke_on))" end)')"
}

# The command that reproduces count $1 alone from its first rate $2: this run's options and environment.
reproduce_command() {
  local n=$1 start=$2 a skip=false args=() env=()
  for a in "${ARGS[@]}"; do
    if $skip; then skip=false; continue; fi
    case $a in --replicas | --start-rate | --out | --title) skip=true; continue ;; esac
    args+=("$a")
  done
  if [ "$MODE" = local ]; then
    env+=("NEWSFEED_RUN=$NEWSFEED_RUN")
    [ -z "${NEWSFEED_PORT_OFFSET:-}" ] || env+=("NEWSFEED_PORT_OFFSET=$NEWSFEED_PORT_OFFSET")
    [ -z "${NEWSFEED_STACK_ENV:-}" ] || env+=("NEWSFEED_STACK_ENV=$NEWSFEED_STACK_ENV")
    [ -z "${BASE_INSTANCES:-}" ] || env+=("SERVICE_INSTANCES=$BASE_INSTANCES")
  else
    env+=("PROMETHEUS_URL=${PROMETHEUS_URL:-}")
  fi
  printf '%q ' "${env[@]}"
  printf 'ci/bench/experiment.sh'
  printf ' %q' "${args[@]}" --replicas "$n" --start-rate "$start"
  echo
}

capacity_count() {
  local n=$1 k=0 start next dir=$OUT/runs/$1
  start=$(python3 ci/bench/experiment/capacity_search.py start "$OUT/steps.jsonl" --replicas "$n" --start-rate "$START_RATE" \
    --next-fraction "$NEXT_FRACTION" --max-rate "$MAX_RATE" --min-rate "$MIN_RATE")
  log "=== $SERVICE x $n: capacity search from $start it/s"
  mode_scale "$n"
  $DRY_RUN || sleep "$SETTLE"
  mkdir -p "$dir"
  reproduce_command "$n" "$start" > "$dir/command.txt"
  RATE=$start
  local measured_env=("${K6_ENV[@]}")
  K6_ENV+=(START_DELAY=0s)   # the warm-up is not measured (and the runner waits --pad after it)
  warmup_run "$n" "$dir"
  K6_ENV=("${measured_env[@]}")
  if $DRY_RUN; then
    mkdir -p "$dir/step-1"
    mode_run "$(testid_of "$n" s1)" "$dir/step-1"
    log "dry run: the following steps depend on what this one measures"
    return 0
  fi
  while next=$(python3 ci/bench/experiment/capacity_search.py next "$OUT/steps.jsonl" --replicas "$n" --start "$start" \
      --growth "$GROWTH" --resolution "$RESOLUTION" --max-rate "$MAX_RATE" --min-rate "$MIN_RATE" \
      --max-steps "$MAX_STEPS") && [[ $next != done* ]]; do
    k=$((k + 1)) RATE=$next
    capacity_step "$n" "$k"
  done
  [[ $next == done* ]] || die "capacity_search.py next failed"
  log "$SERVICE x $n: ${next#done } after $k step(s): $(python3 ci/bench/experiment/capacity_search.py capacity "$OUT/steps.jsonl" --replicas "$n")"
}

capacity_run() {
  jq --arg kind "$THROUGHPUT" --arg slo "$SLO_MS" --arg err "$MAX_ERROR_RATIO" --arg dropped "$MAX_DROPPED" \
     --arg res "$RESOLUTION" --arg step "$STEP" --arg start "$START_RATE" --arg growth "$GROWTH" \
     --arg fraction "$NEXT_FRACTION" --arg max "$MAX_RATE" --arg min "$MIN_RATE" --arg steps "$MAX_STEPS" \
     '. + {capacity: true, kind: $kind, slo_ms: ($slo | tonumber), max_error_ratio: ($err | tonumber),
           max_dropped: ($dropped | tonumber), resolution: ($res | tonumber), step: $step, start_rate: ($start | tonumber),
           growth: ($growth | tonumber), next_fraction: ($fraction | tonumber), max_rate: ($max | tonumber),
           min_rate: ($min | tonumber), max_steps: ($steps | tonumber), rate: null, duration: null}' \
     "$OUT/experiment.json" > "$OUT/experiment.json.new" && mv "$OUT/experiment.json.new" "$OUT/experiment.json"
  : > "$OUT/steps.jsonl"
  trap 'cpu_watch_stop; mode_cleanup' EXIT
  local n
  for n in $REPLICAS; do capacity_count "$n"; done
  $DRY_RUN && { log "dry run: nothing measured"; return 0; }
  local python=python3
  [ ${#CHART_FLAG[@]} -gt 0 ] || python=$(bash ci/bench/experiment/pyenv.sh) || die "no Python with matplotlib for the charts"
  "$python" ci/bench/experiment/capacity_report.py "$OUT" --title "$TITLE" "${CHART_FLAG[@]}"
  cat "$OUT/capacity.md"
  log "results in $OUT: steps.csv, capacity.csv, capacity.md$([ ${#CHART_FLAG[@]} -gt 0 ] || echo ", latency.png, capacity.png")"
}
