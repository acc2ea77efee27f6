#!/usr/bin/env bash
# Horizontal-scaling experiment: for each replica count of one service, scale it, run a k6 scenario at a
# fixed arrival rate, measure the run window from Prometheus, then write a results table (CSV + Markdown)
# and a chart of throughput vs replicas with the scaling efficiency throughput(N) / (N * throughput(1)).
#
# Usage: ci/experiment.sh --mode local|cluster --service SVC --replicas "1 2 3" [options]
#   --scenario NAME     k6 scenario (k6/NAME.js; in a cluster the CronJob <release>-k6-NAME), default social
#   --rate R            k6 RATE (iterations/s over all scenarios of social.js), default 50
#   --duration D        k6 DURATION of the load (k6 syntax: 30s, 2m, 1m30s), default 2m
#   --env KEY=VALUE     more k6 settings (k6/README.md), repeatable: --env SCENARIOS=post_outbound
#   --warmup D          an unmeasured run of D before each measured one (JIT, pools, consumer rebalance)
#   --settle S          seconds to wait after scaling before the run, default 10
#   --pad S             seconds after the run before reading Prometheus (> 1 scrape), default 12 / 40 (cluster)
#   --throughput K      what the efficiency is computed on: http (requests served by the service; default for
#                       social-graph, outbound), events (events consumed by its Kafka group; default for inbound,
#                       search) or api (every request of the k6 run: for scenarios that call only that service)
#   --out DIR           default $NEWSFEED_RUN/experiments/<service>-<mode>-<UTC time>
#   --title TEXT        chart and table title;  --no-chart  skip the PNG
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
#  local mode: NEWSFEED_RUN, NEWSFEED_PORT_OFFSET and NEWSFEED_STACK_ENV as for ci/services.sh; the stores
#   must be up; services, gateway and Prometheus are started when not running and then stopped at the end;
#   services that ran before keep running, the service back at its count before. Also when interrupted: a k6
#   run in progress is stopped first. "replicas" = local instances (at most 9; SERVICE_INSTANCES keeps the
#   other services' counts).
# Output in --out: results.jsonl, results.csv, results.md, throughput.png, runs/<N>/ (k6 output, summary).
set -euo pipefail
cd "$(dirname "$0")/.."
export NEWSFEED_RUN=${NEWSFEED_RUN:-$PWD/.run}

log() { echo "[experiment $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

MODE="" SERVICE="" REPLICAS="" SCENARIO=social RATE=50 DURATION=2m WARMUP="" SETTLE=10 PAD="" THROUGHPUT=""
OUT="" TITLE="" CHART_FLAG=() K6_ENV=()
RELEASE=newsfeed NAMESPACE=newsfeed CHART=charts/newsfeed VALUES_FILES=() SCALE_KEYS="" JOB_TIMEOUT=3600 DRY_RUN=false
CPU_LIMIT="" HELM_SETS=()
while [ $# -gt 0 ]; do
  case $1 in
    --mode) MODE=$2; shift 2 ;;
    --service) SERVICE=$2; shift 2 ;;
    --replicas) REPLICAS=$2; shift 2 ;;
    --scenario) SCENARIO=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --env) K6_ENV+=("$2"); shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --settle) SETTLE=$2; shift 2 ;;
    --pad) PAD=$2; shift 2 ;;
    --throughput) THROUGHPUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --title) TITLE=$2; shift 2 ;;
    --no-chart) CHART_FLAG=(--no-chart); shift ;;
    --release) RELEASE=$2; shift 2 ;;
    --namespace) NAMESPACE=$2; shift 2 ;;
    --chart) CHART=$2; shift 2 ;;
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

# shellcheck source=ci/experiment/duration.sh
source ci/experiment/duration.sh

[[ $MODE =~ ^(local|cluster)$ ]] || { log "--mode local|cluster is required"; usage; }
[[ $SERVICE =~ ^(social-graph|outbound|inbound|search)$ ]] || { log "--service social-graph|outbound|inbound|search"; usage; }
[ -n "$REPLICAS" ] || { log "--replicas \"1 2 3\" is required"; usage; }
for n in $REPLICAS; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "replica count '$n' is not a positive integer"
  [ "$MODE" = cluster ] || [ "$n" -le 9 ] || die "local mode runs at most 9 instances (got $n)"
done
[[ $SCENARIO =~ ^[a-z]+$ ]] && [ -f "k6/$SCENARIO.js" ] || die "no k6 scenario k6/$SCENARIO.js"
[[ $RATE =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--rate must be a number"
DURATION_S=$(seconds_of "$DURATION") || die "--duration '$DURATION' is not a k6 duration (e.g. 30s, 2m)"
[ -z "$WARMUP" ] || seconds_of "$WARMUP" >/dev/null || die "--warmup '$WARMUP' is not a k6 duration"
[ -z "$THROUGHPUT" ] || [[ $THROUGHPUT =~ ^(http|events|api)$ ]] || die "--throughput http|events|api"
for kv in "${K6_ENV[@]}"; do [[ $kv =~ ^[A-Z_][A-Z0-9_]*= ]] || die "--env '$kv' is not KEY=VALUE"; done
SCALE_KEYS=${SCALE_KEYS:-$SERVICE.replicaCount}
if [ "$MODE" = local ] && { [ -n "$CPU_LIMIT" ] || [ ${#HELM_SETS[@]} -gt 0 ]; }; then
  die "--cpu-limit and --set are for --mode cluster (local instances have no CPU limit)"
fi
[ -z "$CPU_LIMIT" ] || [[ $CPU_LIMIT =~ ^([0-9]+m|[0-9]+(\.[0-9]+)?)$ ]] || die "--cpu-limit '$CPU_LIMIT' is not a CPU quantity (250m, 0.5)"
for kv in "${HELM_SETS[@]}"; do [[ $kv =~ ^[A-Za-z0-9_.-]+= ]] || die "--set '$kv' is not KEY=VALUE"; done
PAD=${PAD:-$([ "$MODE" = cluster ] && echo 40 || echo 12)}
STAMP=$(date -u +%Y%m%dt%H%M%Sz)
OUT=${OUT:-$NEWSFEED_RUN/experiments/$SERVICE-$MODE-$STAMP}
TITLE=${TITLE:-"$SERVICE scaling ($MODE, $SCENARIO at $RATE it/s for $DURATION)"}
mkdir -p "$OUT/runs"
OUT=$(cd "$OUT" && pwd)
: > "$OUT/results.jsonl"

# shellcheck source=ci/experiment/local.sh
[ "$MODE" = local ] && source ci/experiment/local.sh
# shellcheck source=ci/experiment/cluster.sh
[ "$MODE" = cluster ] && source ci/experiment/cluster.sh

trap 'mode_cleanup' EXIT
jq -n --arg mode "$MODE" --arg service "$SERVICE" --arg replicas "$REPLICAS" --arg scenario "$SCENARIO" \
  --arg rate "$RATE" --arg duration "$DURATION" --arg warmup "$WARMUP" --arg env "${K6_ENV[*]}" \
  --arg keys "$SCALE_KEYS" --arg started "$STAMP" --arg cpu "$CPU_LIMIT" --arg sets "${HELM_SETS[*]}" \
  '{mode: $mode, service: $service, replicas: $replicas, scenario: $scenario, rate: $rate, duration: $duration,
    warmup: $warmup, k6_env: $env, scale_keys: $keys, cpu_limit: $cpu, helm_sets: $sets, started: $started}' \
  > "$OUT/experiment.json"
mode_prepare

# k8s object names (the cluster Job is named after its test id): lowercase, digits and dashes
testid_of() { echo "exp-$SERVICE-r$1-$2-$STAMP" | tr -c 'a-z0-9\n-' '-' | cut -c1-63; }

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
  # Prometheus must have scraped once after the run (and k6's last remote write must be in)
  wait_s=$(awk -v e="$RUN_T1" -v p="$PAD" -v now="$(date +%s.%N)" 'BEGIN { w = e + p - now; print (w > 0 ? int(w) + 1 : 0) }')
  sleep "$wait_s"
  host_cpu=()
  [ -f "$dir/host-cpu.txt" ] && host_cpu=(--host-cpu "$dir/host-cpu.txt")
  python3 ci/experiment/measure.py --prometheus "$PROMETHEUS_URL" --service "$SERVICE" --testid "$testid" \
      --t0 "$RUN_T0" --t1 "$RUN_T1" --k6-start "$RUN_K6_START" --duration "$DURATION_S" --pad "$PAD" \
      ${THROUGHPUT:+--throughput "$THROUGHPUT"} "${host_cpu[@]}" > "$dir/measure.json" \
    || die "measuring $testid from $PROMETHEUS_URL failed"
  jq -c --argjson n "$n" --argjson rc "$RUN_EXIT" '. + {replicas: $n, k6_exit: $rc}' "$dir/measure.json" \
    | tee -a "$OUT/results.jsonl" >&2
  seen=$(jq -r '.instances // 0' "$dir/measure.json")
  [ "$seen" = "$n" ] || log "WARNING: Prometheus scraped $seen instance(s) of $SERVICE, not $n: its numbers cover only those"
done
$DRY_RUN && { log "dry run: nothing measured"; exit 0; }

python=python3
[ ${#CHART_FLAG[@]} -gt 0 ] || python=$(bash ci/experiment/pyenv.sh) || die "no Python with matplotlib for the chart"
"$python" ci/experiment/report.py "$OUT" --title "$TITLE" "${CHART_FLAG[@]}"
cat "$OUT/results.md"
log "results in $OUT: results.csv, results.md$([ ${#CHART_FLAG[@]} -gt 0 ] || echo ", throughput.png")"
