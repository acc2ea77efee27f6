#!/usr/bin/env bash
# Backlog-drain run: how fast N replicas of a Kafka consumer (inbound's fan-out, search's indexing) work off a
# backlog, which a fixed arrival rate cannot show once one replica keeps up with everything the producers make.
# For each N: the consumer is scaled to 0, a k6 Job posts for --duration at --rate (the events wait in Kafka),
# then the consumer is scaled to N and ci/bench/experiment/drain_watch.py follows its pods' consumed counters in
# Prometheus until the backlog (the events outbound produced meanwhile) is consumed. The drain rate (events/s
# between 25 % and 90 % of the backlog) and the efficiency rate(N) / (N x rate(1)) go to a table. The release is
# rolled back to its revision before the run at the end.
#
# Usage: ci/bench/experiment/drain.sh [options]    (PROMETHEUS_URL must reach the Prometheus scraping the release)
#   --service SVC       inbound (default) or search
#   --replicas "1 2 4"  consumer replica counts, default "1 2"
#   --cpu-limit Q       CPU request = limit of each consumer replica (e.g. 100m): N replicas are N equal units
#   --rate R --duration D   the posts that make each backlog, default 300 it/s for 60s
#   --per-replica       post N x --duration for N replicas: every replica gets the same share of events, so each
#                       spends the same part of its drain warming up (a JVM started under a 100m limit compiles
#                       for minutes); without it N replicas share one backlog and larger N drain it colder
#   --scenario NAME     k6 CronJob <release>-k6-NAME, default experiment
#   --env KEY=VALUE     k6 settings, repeatable; default (experiment) POST_SHARE=1 INBOUND_SHARE=0 PARTICIPANTS=200
#                       FRIENDS=10 PREFILL_POSTS=0 PREFILL_TIMEOUT_S=0: posts only, each fanned out to 10 friends,
#                       and no wait in k6's setup for feeds the stopped consumer cannot fill
#   --timeout S         longest wait for one drain, default 900
#   --release NAME (newsfeed)  --namespace NS (newsfeed)  --chart PATH (charts/newsfeed; on the local node the
#                       offline copy, e.g. $NEWSFEED_RUN/node-install/chart/newsfeed)
#   --out DIR           default $NEWSFEED_RUN/experiments/drain-<service>-<UTC time>
# Output in --out: results.csv and results.md (per N: backlog, drain rate, efficiency, seconds to 90 %, the
# consumer's CPU and CPU per event from its pods' counters, host CPU when the node is this machine), runs/<N>/
# (drain.json, samples.csv, the k6 Job and its log).
set -euo pipefail
cd "$(dirname "$0")/../../.."
# shellcheck source=ci/bench/experiment/runner.sh
source ci/bench/experiment/runner.sh drain

SERVICE=inbound REPLICAS="1 2" CPU_LIMIT="" RATE=300 DURATION=60s SCENARIO=experiment K6_ENV=() DRAIN_TIMEOUT=900
PER_REPLICA=false
RELEASE=newsfeed NAMESPACE=newsfeed CHART=charts/newsfeed OUT=""
while [ $# -gt 0 ]; do
  if runner_option "$@"; then shift 2; continue; fi
  case $1 in
    --service) SERVICE=$2; shift 2 ;;
    --replicas) REPLICAS=$2; shift 2 ;;
    --cpu-limit) CPU_LIMIT=$2; shift 2 ;;
    --per-replica) PER_REPLICA=true; shift ;;
    --timeout) DRAIN_TIMEOUT=$2; shift 2 ;;
    -h|--help) usage ;;
    *) log "unknown option $1"; usage ;;
  esac
done
[[ $SERVICE =~ ^(inbound|search)$ ]] || die "--service inbound|search (the Kafka consumers)"
for n in $REPLICAS; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "replica count '$n' is not a positive integer"; done
[[ $RATE =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--rate must be a number"
[[ $DRAIN_TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout is seconds"
[ -z "$CPU_LIMIT" ] || [[ $CPU_LIMIT =~ ^([0-9]+m|[0-9]+(\.[0-9]+)?)$ ]] || die "--cpu-limit '$CPU_LIMIT' is not a CPU quantity"
[ ${#K6_ENV[@]} -gt 0 ] || [ "$SCENARIO" != experiment ] \
  || K6_ENV=(POST_SHARE=1 INBOUND_SHARE=0 PARTICIPANTS=200 FRIENDS=10 PREFILL_POSTS=0 PREFILL_TIMEOUT_S=0)
for kv in "${K6_ENV[@]}"; do [[ $kv =~ ^[A-Z_][A-Z0-9_]*= ]] || die "--env '$kv' is not KEY=VALUE"; done
release_run_dir "drain-$SERVICE"
mkdir -p "$OUT/runs"

# scaling, the k6 Job, the rollback and the host CPU sampler come from the scaling runner's cluster mode
# shellcheck source=ci/bench/experiment/duration.sh
source ci/bench/experiment/duration.sh
DURATION_S=$(seconds_of "$DURATION") || die "--duration '$DURATION' is not a k6 duration"
BASE_DURATION_S=${DURATION_S%.*}
SCALE_KEYS=$SERVICE.replicaCount VALUES_FILES=() HELM_SETS=() JOB_TIMEOUT=1800 DRY_RUN=false
# shellcheck source=ci/bench/experiment/cluster.sh
source ci/bench/experiment/cluster.sh
trap mode_cleanup EXIT
mode_prepare

# events outbound has produced so far (all its pods), read after one more scrape
produced() {
  python3 -c 'import sys; sys.path.insert(0, "ci/bench/experiment"); from measure import scalar; import time
v = scalar(sys.argv[1], "sum(newsfeed_events_total{service=\"outbound\",event=\"produced\"})", time.time())
print(int(v or 0))' "$PROMETHEUS_URL"
}
# the release's scrape interval (Prometheus' own, ci/bench/experiment/scrape_interval.py): a counter read that long
# (and a second) after a moment holds everything counted up to that moment
SCRAPE_S=$(python3 ci/bench/experiment/scrape_interval.py --prometheus "$PROMETHEUS_URL" --namespace "$NAMESPACE")
log "$NAMESPACE is scraped every $SCRAPE_S s"
# CPU cores the consumer's pods used between two times, from their own process counters
consumer_cores() {
  python3 -c 'import sys; sys.path.insert(0, "ci/bench/experiment"); from measure import scalar
svc, t0, t1 = sys.argv[2], float(sys.argv[3]), float(sys.argv[4]); w = max(1, round(t1 - t0))
v = scalar(sys.argv[1], f"sum(increase(process_cpu_time_ns_total{{service=\"{svc}\"}}[{w}s])) / {w} / 1e9", t1)
print("" if v is None else round(v, 3))' "$PROMETHEUS_URL" "$SERVICE" "$1" "$2"
}
# no pod of the consumer left, terminating ones included: none of them may take a share of the next backlog
no_pods() {
  local deadline=$((SECONDS + 180))
  until [ -z "$(kubectl -n "$NAMESPACE" get pods -l "app.kubernetes.io/instance=$RELEASE,app.kubernetes.io/name=$SERVICE" -o name)" ]; do
    [ $SECONDS -lt $deadline ] || die "pods of $SERVICE still there 180 s after scaling to 0"
    sleep 2
  done
}

echo "replicas,backlog,events_per_s,efficiency,seconds_to_90pct,consumer_cores,cpu_ms_per_event,host_cpu_busy,exact,drained" \
  > "$OUT/results.csv"
rate1=""
for n in $REPLICAS; do
  dir=$OUT/runs/$n; mkdir -p "$dir"
  if $PER_REPLICA; then DURATION_S=$((BASE_DURATION_S * n)); DURATION=${DURATION_S}s; fi
  log "=== $SERVICE x $n: scaled to 0 while the backlog is made"
  mode_scale 0
  no_pods
  sleep $((SCRAPE_S + 1))   # whatever outbound produced before this point is scraped
  before=$(produced)
  job=$(echo "drain-$SERVICE-r$n-$STAMP" | tr -c 'a-z0-9\n-' '-' | cut -c1-63)
  log "k6 $SCENARIO at $RATE it/s for $DURATION (job $job)"
  mode_run "$job" "$dir"
  sleep $((SCRAPE_S + 5))   # the last posts' events (published before k6 had its answers) scraped, with a margin
  backlog=$(( $(produced) - before ))
  [ "$backlog" -gt 0 ] || die "outbound produced no event during $job (see $dir/k6.log)"
  log "backlog: $backlog events; scaling $SERVICE to $n"
  since=$(date +%s.%N)
  ! $NODES_HERE || start_sampler "$dir/drain-host-cpu.txt"
  mode_scale "$n"
  host=(); ! $NODES_HERE || host=(--host-cpu "$dir/drain-host-cpu.txt")
  python3 ci/bench/experiment/drain_watch.py --prometheus "$PROMETHEUS_URL" --service "$SERVICE" --backlog "$backlog" \
    --since "$since" --out "$dir" --timeout "$DRAIN_TIMEOUT" "${host[@]}" > "$dir/drain.json" \
    || die "watching the drain failed"
  stop_sampler
  log "$(cat "$dir/drain.json")"
  rate=$(jq -r '.events_per_s // empty' "$dir/drain.json")
  [ -n "$rate1" ] || rate1=$rate
  eff=$(awk -v r="$rate" -v r1="$rate1" -v n="$n" 'BEGIN { if (r == "" || r1 == "") print ""; else printf "%.2f", r / (n * r1) }')
  # what one event cost the consumer while it drained: rises with N when the replicas are colder or contend (its
  # CPU counters at t_high, scraped)
  sleep $((SCRAPE_S + 1))
  cores=$(consumer_cores "$(jq -r '.t_low // empty' "$dir/drain.json")" "$(jq -r '.t_high // empty' "$dir/drain.json")" \
    2>/dev/null || true)
  per_event=$(awk -v c="$cores" -v r="$rate" 'BEGIN { if (c == "" || r == "" || r == 0) print ""; else printf "%.2f", c * 1000 / r }')
  jq -r --argjson n "$n" --arg eff "$eff" --arg cores "$cores" --arg per "$per_event" \
    '[$n, .backlog, .events_per_s, $eff, .seconds_to_high, $cores, $per, .host_cpu_busy, .exact, .drained] | @csv' \
    "$dir/drain.json" >> "$OUT/results.csv"
done

{
  echo "| $SERVICE replicas | backlog (events) | drain rate (events/s) | efficiency | s to 90 % | consumer CPU (cores) | CPU ms per event | host CPU busy (cores) | exact | drained |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  tail -n +2 "$OUT/results.csv" | tr -d '"' | awk -F, '{printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10}'
  echo
  if $PER_REPLICA; then posted="for N x ${BASE_DURATION_S}s"; else posted="for $DURATION"; fi
  echo "Posts by k6 \`$SCENARIO\` at $RATE it/s $posted (${K6_ENV[*]})${CPU_LIMIT:+, $CPU_LIMIT CPU per replica};"
  echo "counters read from Prometheus, which scraped namespace $NAMESPACE every $SCRAPE_S s."
} > "$OUT/results.md"
cat "$OUT/results.md"
log "results in $OUT: results.csv, results.md, runs/<N>/drain.json"
