#!/usr/bin/env bash
# Horizontal-scaling experiment: for each replica count of one service, scale it and load it with a k6 scenario
# (open loop), measure each load window from Prometheus (the service's own histograms, ci/bench/experiment/measure.py),
# then write a table and charts. Two ways to load a count:
#  --capacity  capacity search (ci/bench/experiment/capacity.sh): step, then bisect, the offered rate until the latency
#              objective breaks; capacity(N) = the highest rate that held, efficiency = capacity(N) / (N x
#              capacity(1)); latency-throughput curves per count. Output: steps.csv, capacity.csv, capacity.md,
#              latency.png, capacity.png, runs/<N>/step-<k>/.
#  default     one fixed arrival rate for every count; efficiency = throughput(N) / (N * throughput(1)) (1/N by
#              construction when one replica already serves the rate). Output: results.csv, results.md,
#              throughput.png, runs/<N>/.
#
# Usage: ci/bench/experiment.sh --mode local|cluster --service SVC --replicas "1 2 3" [--capacity] [options]
#   --scenario NAME     k6 scenario (k6/NAME.js; in a cluster the CronJob <release>-k6-NAME), default social;
#                       with --capacity: experiment, loading only the service (--env defaults below)
#   --rate R            k6 RATE (iterations/s over all scenarios of social.js), default 50
#   --duration D        k6 DURATION of the load (k6 syntax: 30s, 2m, 1m30s), default 2m
#   --env KEY=VALUE     more k6 settings (k6/README.md), repeatable: --env SCENARIOS=post_outbound
#   --warmup D          an unmeasured run of D before each count's first measured one (JIT, pools, consumer
#                       rebalance); with --capacity default 20s at the count's first rate (0s: none)
#   --settle S          seconds to wait after scaling before the run, default 10
#   --pad S             seconds after the run before reading Prometheus (> 1 scrape), default 12; in a cluster the
#                       longest scrape interval of the namespace's targets + 10 (40 at the Operator's default 30 s)
#   --throughput K      what the efficiency is computed on: http (requests served by the service; default for
#                       social-graph, outbound), events (events consumed by its Kafka group; default for inbound,
#                       search) or api (every request of the k6 run: for scenarios that call only that service);
#                       with --capacity default http for every service
#   --out DIR           default $NEWSFEED_RUN/experiments/<service>-<mode>-<UTC time>
#   --title TEXT        chart and table title;  --no-chart  skip the PNGs
#  capacity search (--capacity; --rate and --duration are the fixed-rate mode's):
#   --slo-ms MS         p95 objective: the service's HTTP p95 (server side); default from docs/benchmarks.md's
#                       targets: 20 for inbound (feed reads), 50 for the others (posts' target; search and
#                       social-graph have none of their own). With --throughput events the objective is the p95
#                       of the post -> fanned out / indexed delay instead, default 2000 (the fan-out target)
#   --max-error-ratio E a step breaks above this ratio of 5xx (service) or failed requests (k6), default 0.01
#   --max-dropped D     ... or when k6 dropped more than this share of the iterations offered, default 0.02
#   --resolution X      bisect until the lowest rate that broke is within X of the highest that held, default 0.05
#   --start-rate R      the first count's first rate (it/s), default 50; a later count N starts at
#   --next-fraction F   F x N/P x capacity(P), P the previous count with a capacity, default 0.75
#   --growth G          multiply the rate by G while steps hold, divide while they break, default 2
#   --max-rate R / --min-rate R   the search's bounds (it/s), default 5000 / 1: a count that holds at the
#                       maximum is reported as capped there, one that breaks at the minimum as none held
#   --max-steps K       at most K measured steps per count, default 15
#   --step D            load per step (k6 duration), default 30s
#   defaults with --capacity and no --scenario (k6/experiment.js; --env settings come after and win):
#   PARTICIPANTS=200 FRIENDS=10 CHECK_EVERY=10 and: outbound, social-graph, and --throughput events: posts
#   (POST_SHARE=1 INBOUND_SHARE=0 PREFILL_POSTS=0 PREFILL_TIMEOUT_S=0; social-graph serves their fan-out's
#   friend lists); inbound: reads of full pages (PREFILL_POSTS=2); search: SEARCH_SHARE=1 INBOUND_SHARE=0
#  cluster mode (PROMETHEUS_URL must reach the cluster's Prometheus, e.g. through kubectl port-forward; at the
#  end, also when interrupted, a k6 Job still running is deleted and the release rolled back to its revision
#  before the run):
#   --release NAME (newsfeed)  --namespace NS (newsfeed)  --chart PATH (charts/newsfeed)
#   --values FILE       extra values for every upgrade, repeatable (e.g. values/scaling/hpa.yaml)
#   --key K[,K2]        value(s) set to the replica count, default <service>.replicaCount; with an HPA e.g.
#                       <service>.autoscaling.hpa.minReplicas,<service>.autoscaling.hpa.maxReplicas
#   --cpu-limit Q       CPU request = limit of each replica of the service (e.g. 250m): one replica then
#                       saturates long before a small node does, and N replicas are N equal units
#   --set K=V           one more helm --set for every upgrade, repeatable
#   --job-timeout S     give up waiting for a k6 Job, default 3600;  --dry-run  print helm/kubectl, run nothing
#  local mode: NEWSFEED_RUN, NEWSFEED_PORT_OFFSET and NEWSFEED_STACK_ENV as for ci/local/services.sh; the stores
#   must be up; services, gateway and Prometheus are started when not running and then stopped at the end;
#   services that ran before keep running, the service back at its count before. Also when interrupted: a k6
#   run in progress is stopped first. "replicas" = local instances (at most 9; SERVICE_INSTANCES keeps the
#   other services' counts).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=ci/bench/experiment/runner.sh
source ci/bench/experiment/runner.sh experiment

ARGS=("$@")   # the command line, for the capacity table's reproduce commands
MODE="" SERVICE="" REPLICAS="" SCENARIO="" RATE="" DURATION="" WARMUP="-" SETTLE=10 PAD="" THROUGHPUT=""
OUT="" TITLE="" CHART_FLAG=() K6_ENV=()
RELEASE=newsfeed NAMESPACE=newsfeed CHART=charts/newsfeed VALUES_FILES=() SCALE_KEYS="" JOB_TIMEOUT=3600 DRY_RUN=false
CPU_LIMIT="" HELM_SETS=()
CAPACITY=false SLO_MS="" MAX_ERROR_RATIO=0.01 MAX_DROPPED=0.02 RESOLUTION=0.05 START_RATE=50 NEXT_FRACTION=0.75
GROWTH=2 MAX_RATE=5000 MIN_RATE=1 MAX_STEPS=15 STEP=30s CAPACITY_OPTION=""
while [ $# -gt 0 ]; do
  if runner_option "$@"; then shift 2; continue; fi
  case $1 in
    --mode) MODE=$2; shift 2 ;;
    --service) SERVICE=$2; shift 2 ;;
    --replicas) REPLICAS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --settle) SETTLE=$2; shift 2 ;;
    --pad) PAD=$2; shift 2 ;;
    --throughput) THROUGHPUT=$2; shift 2 ;;
    --title) TITLE=$2; shift 2 ;;
    --no-chart) CHART_FLAG=(--no-chart); shift ;;
    --capacity) CAPACITY=true; shift ;;
    --slo-ms) SLO_MS=$2; CAPACITY_OPTION=$1; shift 2 ;;
    --max-error-ratio) MAX_ERROR_RATIO=$2; CAPACITY_OPTION=$1; shift 2 ;;
    --max-dropped) MAX_DROPPED=$2; CAPACITY_OPTION=$1; shift 2 ;;
    --resolution) RESOLUTION=$2; CAPACITY_OPTION=$1; shift 2 ;;
    --start-rate) START_RATE=$2; CAPACITY_OPTION=$1; shift 2 ;;
    --next-fraction) NEXT_FRACTION=$2; CAPACITY_OPTION=$1; shift 2 ;;
    --growth) GROWTH=$2; CAPACITY_OPTION=$1; shift 2 ;;
    --max-rate) MAX_RATE=$2; CAPACITY_OPTION=$1; shift 2 ;;
    --min-rate) MIN_RATE=$2; CAPACITY_OPTION=$1; shift 2 ;;
    --max-steps) MAX_STEPS=$2; CAPACITY_OPTION=$1; shift 2 ;;
    --step) STEP=$2; CAPACITY_OPTION=$1; shift 2 ;;
    --values) VALUES_FILES+=("$2"); shift 2 ;;
    --key) SCALE_KEYS=$2; shift 2 ;;
    --cpu-limit) CPU_LIMIT=$2; shift 2 ;;
    --set) HELM_SETS+=("$2"); shift 2 ;;
    --job-timeout) JOB_TIMEOUT=$2; shift 2 ;;
    --dry-run) DRY_RUN=true; shift ;;
    -h|--help) usage ;;
    *) log "unknown option $1"; usage ;;
  esac
done

# shellcheck source=ci/bench/experiment/duration.sh
source ci/bench/experiment/duration.sh
is_number() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }

[[ $MODE =~ ^(local|cluster)$ ]] || { log "--mode local|cluster is required"; usage; }
[[ $SERVICE =~ ^(social-graph|outbound|inbound|search)$ ]] || { log "--service social-graph|outbound|inbound|search"; usage; }
[ -n "$REPLICAS" ] || { log "--replicas \"1 2 3\" is required"; usage; }
for n in $REPLICAS; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "replica count '$n' is not a positive integer"
  [ "$MODE" = cluster ] || [ "$n" -le 9 ] || die "local mode runs at most 9 instances (got $n)"
done
[ -z "$THROUGHPUT" ] || [[ $THROUGHPUT =~ ^(http|events|api)$ ]] || die "--throughput http|events|api"
# cluster: the longest scrape interval of the release's targets plus 10 s (k6 remote-writes every 5 s), 40 s with
# the Operator's default of 30 s; local: the local Prometheus scrapes every 5 s
if [ -z "$PAD" ] && [ "$MODE" = cluster ] && ! $DRY_RUN && [ -n "${PROMETHEUS_URL:-}" ]; then
  PAD=$(( $(python3 ci/bench/experiment/scrape_interval.py --prometheus "$PROMETHEUS_URL" --namespace "$NAMESPACE") + 10 ))
  log "reading Prometheus ${PAD} s after each run (--pad: its scrape interval of namespace $NAMESPACE + 10 s)"
fi
PAD=${PAD:-$([ "$MODE" = cluster ] && echo 40 || echo 12)}
if $CAPACITY; then
  # shellcheck source=ci/bench/experiment/capacity.sh
  source ci/bench/experiment/capacity.sh
  capacity_settings
else
  [ -z "$CAPACITY_OPTION" ] || die "$CAPACITY_OPTION is an option of the capacity search (--capacity)"
  RATE=${RATE:-50} DURATION=${DURATION:-2m} SCENARIO=${SCENARIO:-social}
  [ "$WARMUP" != - ] || WARMUP=""
fi
[[ $SCENARIO =~ ^[a-z]+$ ]] && [ -f "k6/$SCENARIO.js" ] || die "no k6 scenario k6/$SCENARIO.js"
is_number "$RATE" || die "--rate must be a number"
DURATION_S=$(seconds_of "$DURATION") || die "--duration '$DURATION' is not a k6 duration (e.g. 30s, 2m)"
[ -z "$WARMUP" ] || WARMUP_S=$(seconds_of "$WARMUP") || die "--warmup '$WARMUP' is not a k6 duration"
[ -z "$WARMUP" ] || [ "${WARMUP_S:-0}" != 0 ] || WARMUP=""
for kv in "${K6_ENV[@]}"; do [[ $kv =~ ^[A-Z_][A-Z0-9_]*= ]] || die "--env '$kv' is not KEY=VALUE"; done
# the runner measures its own windows after its own --warmup: no warm-up inside a measured k6 run (social.js)
K6_ENV=(WARMUP=0s "${K6_ENV[@]}")
SCALE_KEYS=${SCALE_KEYS:-$SERVICE.replicaCount}
if [ "$MODE" = local ] && { [ -n "$CPU_LIMIT" ] || [ ${#HELM_SETS[@]} -gt 0 ]; }; then
  die "--cpu-limit and --set are for --mode cluster (local instances have no CPU limit)"
fi
[ -z "$CPU_LIMIT" ] || [[ $CPU_LIMIT =~ ^([0-9]+m|[0-9]+(\.[0-9]+)?)$ ]] || die "--cpu-limit '$CPU_LIMIT' is not a CPU quantity (250m, 0.5)"
for kv in "${HELM_SETS[@]}"; do [[ $kv =~ ^[A-Za-z0-9_.-]+= ]] || die "--set '$kv' is not KEY=VALUE"; done
STAMP=$(date -u +%Y%m%dt%H%M%Sz)
OUT=${OUT:-$NEWSFEED_RUN/experiments/$SERVICE-$MODE-$STAMP}
TITLE=${TITLE:-"$SERVICE scaling ($MODE, $SCENARIO at $RATE it/s for $DURATION)"}
mkdir -p "$OUT/runs"
OUT=$(cd "$OUT" && pwd)

# shellcheck source=ci/bench/experiment/local.sh
[ "$MODE" = local ] && source ci/bench/experiment/local.sh
# shellcheck source=ci/bench/experiment/cluster.sh
[ "$MODE" = cluster ] && source ci/bench/experiment/cluster.sh

trap 'mode_cleanup' EXIT
jq -n --arg mode "$MODE" --arg service "$SERVICE" --arg replicas "$REPLICAS" --arg scenario "$SCENARIO" \
  --arg rate "$RATE" --arg duration "$DURATION" --arg warmup "$WARMUP" --arg env "${K6_ENV[*]}" \
  --arg keys "$SCALE_KEYS" --arg started "$STAMP" --arg cpu "$CPU_LIMIT" --arg sets "${HELM_SETS[*]}" \
  --argjson pad "$PAD" \
  '{mode: $mode, service: $service, replicas: $replicas, scenario: $scenario, rate: $rate, duration: $duration,
    warmup: $warmup, k6_env: $env, scale_keys: $keys, cpu_limit: $cpu, helm_sets: $sets, pad: $pad,
    started: $started}' \
  > "$OUT/experiment.json"
mode_prepare

# k8s object names (the cluster Job is named after its test id): lowercase, digits and dashes
testid_of() { echo "exp-$SERVICE-r$1-$2-$STAMP" | tr -c 'a-z0-9\n-' '-' | cut -c1-63; }

# Measures the last run (RUN_T0..RUN_T1 of mode_run) of test id $1 into $2/measure.json, once Prometheus has
# scraped after it (and k6's last remote write is in).
measure_run() {
  local testid=$1 dir=$2 wait_s host_cpu=()
  wait_s=$(awk -v e="$RUN_T1" -v p="$PAD" -v now="$(date +%s.%N)" 'BEGIN { w = e + p - now; print (w > 0 ? int(w) + 1 : 0) }')
  sleep "$wait_s"
  [ -f "$dir/host-cpu.txt" ] && host_cpu=(--host-cpu "$dir/host-cpu.txt")
  python3 ci/bench/experiment/measure.py --prometheus "$PROMETHEUS_URL" --service "$SERVICE" --testid "$testid" \
      --t0 "$RUN_T0" --t1 "$RUN_T1" --k6-start "$RUN_K6_START" --duration "$DURATION_S" --pad "$PAD" \
      ${THROUGHPUT:+--throughput "$THROUGHPUT"} "${host_cpu[@]}" > "$dir/measure.json" \
    || die "measuring $testid from $PROMETHEUS_URL failed"
}
warn_unscraped() {
  local seen; seen=$(jq -r '.instances // 0' "$2")
  [ "$seen" = "$1" ] || log "WARNING: Prometheus scraped $seen instance(s) of $SERVICE, not $1: its numbers cover only those"
}
# an unmeasured run of WARMUP before count $1's first measured one (not in a subshell: the cleanup must see it)
warmup_run() {
  [ -n "$WARMUP" ] || return 0
  local duration=$DURATION
  log "warm-up run of $WARMUP at $RATE it/s"
  DURATION=$WARMUP
  mkdir -p "$2/warmup"
  mode_run "$(testid_of "$1" warm)" "$2/warmup" || true
  DURATION=$duration
  # Prometheus scrapes once more before the measured run, else its first window would start at the last sample
  # before it (up to a scrape interval earlier) and count the warm-up's last requests
  $DRY_RUN || sleep "$PAD"
}

if $CAPACITY; then
  capacity_run
  exit 0
fi

: > "$OUT/results.jsonl"
for n in $REPLICAS; do
  log "=== $SERVICE x $n"
  mode_scale "$n"
  $DRY_RUN || sleep "$SETTLE"
  dir=$OUT/runs/$n
  mkdir -p "$dir"
  warmup_run "$n" "$dir"
  testid=$(testid_of "$n" run)
  log "k6 $SCENARIO at $RATE it/s for $DURATION (testid $testid)"
  mode_run "$testid" "$dir"
  log "k6 exit $RUN_EXIT; window $(date -d "@${RUN_T0%.*}" +%T)-$(date -d "@${RUN_T1%.*}" +%T)"
  $DRY_RUN && continue
  measure_run "$testid" "$dir"
  jq -c --argjson n "$n" --argjson rc "$RUN_EXIT" '. + {replicas: $n, k6_exit: $rc}' "$dir/measure.json" \
    | tee -a "$OUT/results.jsonl" >&2
  warn_unscraped "$n" "$dir/measure.json"
done
$DRY_RUN && { log "dry run: nothing measured"; exit 0; }

python=python3
[ ${#CHART_FLAG[@]} -gt 0 ] || python=$(bash ci/bench/experiment/pyenv.sh) || die "no Python with matplotlib for the chart"
"$python" ci/bench/experiment/report.py "$OUT" --title "$TITLE" "${CHART_FLAG[@]}"
cat "$OUT/results.md"
log "results in $OUT: results.csv, results.md$([ ${#CHART_FLAG[@]} -gt 0 ] || echo ", throughput.png")"
