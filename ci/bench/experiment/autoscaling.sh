#!/usr/bin/env bash
# Autoscaling run: puts a service of an installed release under its HorizontalPodAutoscaler (a values profile,
# default values/scaling/hpa-local-node.yaml), loads it with a k6 Job from the chart's CronJob, and records the
# replica counts over time (the HPA's desired and current replicas, the Deployment's ready replicas, the CPU
# utilisation the HPA acts on) from before the load until the HPA is back at its minimum. Then the release is
# rolled back to the revision it had, so the run leaves it as it found it.
# A JVM that meets the load cold under a small CPU limit fails its readiness probes, and an unready pod gives the HPA
# no CPU to act on; a warm-up Job warms it first, before the HPA exists, so that its CPU cannot scale the service
# out: the run starts from the minimum, and whatever scales it out is the load.
#
# Usage: ci/bench/experiment/autoscaling.sh [options]
#   --service SVC       the autoscaled service (its HPA must be enabled by the values), default outbound
#   --values FILE       values applied for the run, repeatable, default values/scaling/hpa-local-node.yaml
#   --scenario NAME     k6 CronJob <release>-k6-NAME, default experiment
#   --rate R --duration D   k6 RATE and DURATION, default 150 and 3m
#   --env KEY=VALUE     k6 settings, repeatable; default (experiment) POST_SHARE=1 INBOUND_SHARE=0 PARTICIPANTS=200
#                       FRIENDS=2 PREFILL_POSTS=0 PREFILL_TIMEOUT_S=0: posts only, a setup that posts nothing
#   --warmup-env KEY=VALUE  the warm-up Job's settings over --env's, repeatable; default (experiment)
#                       PREFILL_POSTS=1 PREFILL_TIMEOUT_S=120: one post per participant in batches in its setup
#   --warmup-duration D the warm-up Job's load, at --rate after its setup, default 30s
#   --no-warmup         the load meets the service as the upgrade started it
#   --sample S          seconds between samples, default 5
#   --back-timeout S    after the load, how long to wait for the minimum again, default 300
#   --release NAME (newsfeed)  --namespace NS (newsfeed)  --chart PATH (charts/newsfeed; on the local node the
#                       offline copy, e.g. $NEWSFEED_RUN/node-install/chart/newsfeed)
#   --out DIR           default $NEWSFEED_RUN/experiments/autoscaling-<service>-<UTC time>
# Output in --out: replicas.csv (one row per sample), summary.json and summary.md (the counts when the load began,
# scale-out and scale-in times, the highest count), replicas.png (counts and CPU over time, the load shaded), k6.log,
# job.json, warmup/ (the warm-up Job's k6.log and job.json).
# Exit 0 when the run was recorded (whatever the HPA did: summary.json says), 1 when it could not run.
set -euo pipefail
cd "$(dirname "$0")/../../.."
# shellcheck source=ci/bench/experiment/runner.sh
source ci/bench/experiment/runner.sh autoscaling

SERVICE=outbound VALUES_FILES=() SCENARIO=experiment RATE=150 DURATION=3m K6_ENV=() SAMPLE=5 BACK_TIMEOUT=300
RELEASE=newsfeed NAMESPACE=newsfeed CHART=charts/newsfeed OUT="" JOB_TIMEOUT=1800 DRY_RUN=false WARMUP_ENV=() WARMUP=true
WARMUP_DURATION=30s
while [ $# -gt 0 ]; do
  if runner_option "$@"; then shift 2; continue; fi
  case $1 in
    --service) SERVICE=$2; shift 2 ;;
    --values) VALUES_FILES+=("$2"); shift 2 ;;
    --sample) SAMPLE=$2; shift 2 ;;
    --warmup-env) WARMUP_ENV+=("$2"); shift 2 ;;
    --warmup-duration) WARMUP_DURATION=$2; shift 2 ;;
    --no-warmup) WARMUP=false; shift ;;
    --back-timeout) BACK_TIMEOUT=$2; shift 2 ;;
    -h|--help) usage ;;
    *) log "unknown option $1"; usage ;;
  esac
done
[[ $SERVICE =~ ^(social-graph|outbound|inbound|search)$ ]] || die "--service social-graph|outbound|inbound|search"
[ ${#VALUES_FILES[@]} -gt 0 ] || VALUES_FILES=(values/scaling/hpa-local-node.yaml)
[ ${#K6_ENV[@]} -gt 0 ] || [ "$SCENARIO" != experiment ] \
  || K6_ENV=(POST_SHARE=1 INBOUND_SHARE=0 PARTICIPANTS=200 FRIENDS=2 PREFILL_POSTS=0 PREFILL_TIMEOUT_S=0)
[ ${#WARMUP_ENV[@]} -gt 0 ] || [ "$SCENARIO" != experiment ] || WARMUP_ENV=(PREFILL_POSTS=1 PREFILL_TIMEOUT_S=120)
[[ $RATE =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--rate must be a number"
[[ $SAMPLE =~ ^[1-9][0-9]*$ ]] && [[ $BACK_TIMEOUT =~ ^[0-9]+$ ]] || die "--sample and --back-timeout are seconds"
for kv in "${K6_ENV[@]}" "${WARMUP_ENV[@]}"; do [[ $kv =~ ^[A-Z_][A-Z0-9_]*= ]] || die "--env '$kv' is not KEY=VALUE"; done
for f in "${VALUES_FILES[@]}"; do [ -f "$f" ] || die "no values file $f"; done
release_run_dir "autoscaling-$SERVICE"

# the k6 Job and its wait come from the scaling runner's cluster mode (mode_run sets RUN_K6_START, RUN_T0, RUN_T1)
# shellcheck source=ci/bench/experiment/duration.sh
source ci/bench/experiment/duration.sh
DURATION_S=$(seconds_of "$DURATION") || die "--duration '$DURATION' is not a k6 duration"
seconds_of "$WARMUP_DURATION" > /dev/null || die "--warmup-duration '$WARMUP_DURATION' is not a k6 duration"
# shellcheck source=ci/bench/experiment/cluster.sh
source ci/bench/experiment/cluster.sh
kc() { kubectl -n "$NAMESPACE" "$@"; }

helm -n "$NAMESPACE" status "$RELEASE" >/dev/null || die "no release $RELEASE in namespace $NAMESPACE"
kc get "cronjob/$RELEASE-k6-$SCENARIO" >/dev/null || die "no CronJob $RELEASE-k6-$SCENARIO in the release"
REVISION=$(helm -n "$NAMESPACE" history "$RELEASE" -o json | jq '[.[] | select(.status == "deployed")][0].revision')
[ -n "$REVISION" ] && [ "$REVISION" != null ] || die "no deployed revision of $RELEASE"

restore() {
  log "rolling $RELEASE back to revision $REVISION"
  helm -n "$NAMESPACE" rollback "$RELEASE" "$REVISION" --wait --timeout 10m >&2 || log "WARNING: rollback failed"
}
SAMPLER=""
finish() { [ -z "$SAMPLER" ] || kill "$SAMPLER" 2>/dev/null || true; restore; }
trap finish EXIT

values=(); for f in "${VALUES_FILES[@]}"; do values+=(-f "$f"); done
# upgrade [--set K=V ...]: the release with the run's values over its own, rolled out
upgrade() {
  log "helm upgrade $RELEASE with ${VALUES_FILES[*]} $*"
  helm upgrade "$RELEASE" "$CHART" -n "$NAMESPACE" --reuse-values "${values[@]}" "$@" --wait --timeout 10m >&2 \
    || die "helm upgrade failed"
}
JOB=$(echo "autoscaling-$SERVICE-$STAMP" | tr -c 'a-z0-9\n-' '-' | cut -c1-56)
WARMUP_DESC=""   # what the warm-up Job did, for the log and run.json
if $WARMUP; then
  WARMUP_DESC="${WARMUP_ENV[*]:-the same settings}, then $RATE it/s for $WARMUP_DURATION"
  # the same values without the HPA: the pod the run measures, warmed by a Job whose CPU no HPA sees; the upgrade
  # after it only adds the HPA (the pod template is the same, so the pod stays)
  upgrade --set "$SERVICE.autoscaling.hpa.enabled=false"
  mkdir -p "$OUT/warmup"
  log "warm-up: k6 $SCENARIO with $WARMUP_DESC (job $JOB-warmup)"
  # in a subshell, so that the load's DURATION and K6_ENV stay as they are (its die ends the run, as errexit)
  ( DURATION=$WARMUP_DURATION K6_ENV+=("${WARMUP_ENV[@]}")
    mode_run "$JOB-warmup" "$OUT/warmup"
    log "warm-up over (k6 exit $RUN_EXIT): $(grep -o 'setup: .*' "$OUT/warmup/k6.log" | tail -n 1)" )
fi
upgrade
HPA=$(kc get hpa -l "app.kubernetes.io/instance=$RELEASE,app.kubernetes.io/name=$SERVICE" -o name | head -n 1)
[ -n "$HPA" ] || die "no HorizontalPodAutoscaler of $SERVICE: do the values enable $SERVICE.autoscaling.hpa?"
DEPLOY=deployment/$(kc get "$HPA" -o jsonpath='{.spec.scaleTargetRef.name}')
MIN=$(kc get "$HPA" -o jsonpath='{.spec.minReplicas}') MAX=$(kc get "$HPA" -o jsonpath='{.spec.maxReplicas}')

# one CSV row: time, seconds since start, phase, HPA desired/current, Deployment ready, CPU % of the request
sample() {
  kc get "$HPA" "$DEPLOY" -o json | jq -r --arg t "$(date +%s)" --arg t0 "$T_START" --arg phase "$(cat "$OUT/.phase")" '
    (.items[0].status) as $h | (.items[1].status) as $d
    | [$t, (($t | tonumber) - ($t0 | tonumber)), $phase, ($h.desiredReplicas // ""), ($h.currentReplicas // ""),
       ($d.readyReplicas // 0),
       ([$h.currentMetrics[]? | select(.type == "Resource" and .resource.name == "cpu")][0].resource.current.averageUtilization // "")]
    | @csv'
}
# the HPA has read the pods' CPU once (metrics-server answers a minute or so after a pod starts)
hpa_reads_cpu() { [ -n "$(kc get "$HPA" -o jsonpath='{.status.currentMetrics[0].resource.current.averageUtilization}')" ]; }
at_min() {
  [ "$(kc get "$HPA" -o jsonpath='{.status.currentReplicas}')" = "$MIN" ] \
    && [ "$(kc get "$DEPLOY" -o jsonpath='{.status.readyReplicas}')" = "$MIN" ] \
    && [ "$(kc get "$DEPLOY" -o jsonpath='{.status.replicas}')" = "$MIN" ]
}
wait_until() { local deadline=$((SECONDS + $1)); shift; until "$@"; do [ $SECONDS -lt $deadline ] || return 1; sleep 2; done; }

log "$HPA ($MIN..$MAX replicas): waiting until it reads CPU and runs $MIN replica(s)"
wait_until 240 hpa_reads_cpu || die "$HPA reads no CPU metric after 240 s (metrics-server up? kubectl top pod)"
wait_until 300 at_min || die "$DEPLOY is not at its minimum of $MIN replicas"

T_START=$(date +%s)
echo idle > "$OUT/.phase"
echo '"time","seconds","phase","desired","current","ready","cpu_percent"' > "$OUT/replicas.csv"
( while :; do sample >> "$OUT/replicas.csv" 2>/dev/null || true; sleep "$SAMPLE"; done ) &
SAMPLER=$!
sleep $((2 * SAMPLE))

echo load > "$OUT/.phase"
log "k6 $SCENARIO at $RATE it/s for $DURATION (job $JOB)"
mode_run "$JOB" "$OUT"
echo after > "$OUT/.phase"
log "load over (k6 exit $RUN_EXIT); waiting up to ${BACK_TIMEOUT}s for $MIN replica(s) again"
back=true
wait_until "$BACK_TIMEOUT" at_min || back=false
sleep "$SAMPLE"
kill "$SAMPLER" 2>/dev/null || true; SAMPLER=""
kc get "$HPA" -o yaml > "$OUT/hpa.yaml"
kc describe "$HPA" | sed -n '/^Events:/,$p' > "$OUT/hpa-events.txt"

jq -n --arg service "$SERVICE" --argjson min "$MIN" --argjson max "$MAX" --arg rate "$RATE" --arg duration "$DURATION" \
  --arg scenario "$SCENARIO" --arg env "${K6_ENV[*]}" --arg warmup "$WARMUP_DESC" --arg values "${VALUES_FILES[*]}" \
  --argjson k6_exit "$RUN_EXIT" \
  --argjson start "$T_START" --argjson load_start "$RUN_T0" --argjson load_end "$RUN_T1" --argjson back "$back" \
  '{service: $service, min: $min, max: $max, scenario: $scenario, rate: $rate, duration: $duration, k6_env: $env,
    warmup: $warmup, values: $values, k6_exit: $k6_exit, start: $start, load_start: $load_start,
    load_end: $load_end, back_to_min: $back}' > "$OUT/run.json"
python=$(bash ci/bench/experiment/pyenv.sh) || die "no Python with matplotlib for the chart"
"$python" ci/bench/experiment/autoscaling_report.py "$OUT"
cat "$OUT/summary.md"
log "recorded in $OUT: replicas.csv, summary.json, summary.md, replicas.png"
