# Cluster mode of ci/bench/experiment.sh (sourced): scales a service of an installed `newsfeed` release with
# `helm upgrade --reuse-values --set <key>=N` (and rolls it back to its revision before the run at the end), waits
# for the rollout, runs the chart's suspended k6 CronJob
# `<release>-k6-<scenario>` as a Job with its own TESTID/RATE/DURATION, waits for it, and leaves the
# measuring to the Prometheus at PROMETHEUS_URL (e.g. a `kubectl port-forward` to the cluster's Prometheus).
# Uses the runner's globals (SERVICE, SCENARIO, RATE, DURATION, DURATION_S, K6_ENV, RELEASE, NAMESPACE, CHART,
# VALUES_FILES, SCALE_KEYS, CPU_LIMIT, HELM_SETS, JOB_TIMEOUT, DRY_RUN) and sets RUN_K6_START, RUN_T0, RUN_T1, RUN_EXIT, RUN_DIR.
# shellcheck shell=bash disable=SC2034   # RUN_* are read by ci/bench/experiment.sh

# shellcheck source=ci/bench/experiment/host_cpu.sh
source ci/bench/experiment/host_cpu.sh
sampler_pid="" NODES_HERE=false REVISION_BEFORE="" RUN_JOB=""

# kubectl/helm, or with --dry-run only printed (to see the plan without a cluster)
kc() { if $DRY_RUN; then echo "+ kubectl -n $NAMESPACE $*" >&2; else kubectl -n "$NAMESPACE" "$@"; fi; }
hm() { if $DRY_RUN; then echo "+ helm $*" >&2; else helm "$@"; fi; }

mode_prepare() {
  [ -n "${PROMETHEUS_URL:-}" ] || $DRY_RUN || die "cluster mode needs PROMETHEUS_URL (e.g. kubectl -n monitoring port-forward svc/kube-prometheus-stack-prometheus 9090, then PROMETHEUS_URL=http://127.0.0.1:9090)"
  $DRY_RUN && return 0
  command -v kubectl >/dev/null || die "kubectl is not on PATH"
  command -v helm >/dev/null || die "helm is not on PATH (bash ci/local/tools.sh all puts it in ~/.cache/newsfeed/bin)"
  helm -n "$NAMESPACE" status "$RELEASE" >/dev/null || die "no release $RELEASE in namespace $NAMESPACE"
  kubectl -n "$NAMESPACE" get "cronjob/$RELEASE-k6-$SCENARIO" >/dev/null \
    || die "no CronJob $RELEASE-k6-$SCENARIO (k6.enabled and k6.scenarios.$SCENARIO.enabled in the release?)"
  curl -sf -m 5 -o /dev/null "$PROMETHEUS_URL/-/ready" || die "Prometheus at $PROMETHEUS_URL is not ready"
  # the release goes back to this revision at the end, so the run leaves it as it found it
  REVISION_BEFORE=$(helm -n "$NAMESPACE" history "$RELEASE" -o json | jq '[.[] | select(.status == "deployed")][0].revision')
  # every node's address is one of this machine's (ci/local/cluster.sh's node): the host CPU is the cluster's CPU
  # (the addresses read once: `ip ... | grep -q` under pipefail fails when grep's early exit cuts ip's output short)
  local ip here=true addrs
  addrs=$(ip -o addr show)
  for ip in $(kubectl get nodes -o jsonpath='{.items[*].status.addresses[?(@.type=="InternalIP")].address}'); do
    grep -q " inet $ip/" <<< "$addrs" || here=false
  done
  NODES_HERE=$here
  ! $NODES_HERE || log "the cluster's node runs on this machine: host CPU busy is measured too"
}

deployment_of_service() {
  kubectl -n "$NAMESPACE" get deployment \
    -l "app.kubernetes.io/instance=$RELEASE,app.kubernetes.io/name=$SERVICE" -o name | head -n 1
}

mode_scale() {
  local n=$1 sets=() key
  for key in ${SCALE_KEYS//,/ }; do sets+=(--set "$key=$n"); done
  [ -z "$CPU_LIMIT" ] || sets+=(--set "$SERVICE.resources.requests.cpu=$CPU_LIMIT" --set "$SERVICE.resources.limits.cpu=$CPU_LIMIT")
  for key in "${HELM_SETS[@]}"; do sets+=(--set "$key"); done
  local values=() f
  for f in "${VALUES_FILES[@]}"; do values+=(-f "$f"); done
  hm upgrade "$RELEASE" "$CHART" -n "$NAMESPACE" --reuse-values "${values[@]}" "${sets[@]}" >&2 \
    || die "helm upgrade failed"
  if $DRY_RUN; then echo "+ kubectl -n $NAMESPACE rollout status deployment/<$RELEASE $SERVICE>" >&2; return 0; fi
  local deploy; deploy=$(deployment_of_service)
  [ -n "$deploy" ] || die "no Deployment of $SERVICE in release $RELEASE"
  kubectl -n "$NAMESPACE" rollout status "$deploy" --timeout=15m >&2 || die "$deploy did not roll out"
  log "$deploy: $(kubectl -n "$NAMESPACE" get "$deploy" -o jsonpath='{.status.readyReplicas}') ready replica(s)"
}

# The CronJob's Job with TESTID, RATE, DURATION and the --env settings replacing the same names in every container.
job_manifest() {
  local job=$1 env_json
  env_json=$(printf '%s\n' "TESTID=$job" "RATE=$RATE" "DURATION=$DURATION" "${K6_ENV[@]}" \
    | jq -R 'capture("^(?<name>[^=]+)=(?<value>.*)$")' | jq -s 'reverse | unique_by(.name)')
  kubectl -n "$NAMESPACE" create job --from="cronjob/$RELEASE-k6-$SCENARIO" "$job" --dry-run=client -o json \
    | jq --argjson add "$env_json" '
        .metadata.labels["newsfeed/experiment"] = "true"
        | .spec.template.spec.containers |= map(
            .env = ([(.env // [])[] | select(.name as $n | [$add[].name] | index($n) | not)] + $add))'
}

# epoch seconds of a Kubernetes RFC3339 timestamp
epoch() { date -d "$1" +%s; }

mode_run() {
  local job=$1 dir=$2
  RUN_DIR=$dir RUN_EXIT=0
  if $DRY_RUN; then
    echo "+ kubectl -n $NAMESPACE create job --from=cronjob/$RELEASE-k6-$SCENARIO $job (TESTID=$job RATE=$RATE DURATION=$DURATION ${K6_ENV[*]})" >&2
    echo "+ kubectl -n $NAMESPACE wait --for=condition=complete job/$job" >&2
    RUN_K6_START=$(date +%s) RUN_T1=$(date +%s) RUN_T0=$(date +%s)
    return 0
  fi
  job_manifest "$job" > "$dir/job.json"
  ! $NODES_HERE || start_sampler "$dir/host-cpu.txt"
  RUN_JOB=$job   # deleted by mode_cleanup when the runner is interrupted before the Job ends
  kubectl -n "$NAMESPACE" apply -f "$dir/job.json" >&2 || die "could not create job/$job"
  # Complete or Failed (a failed k6 threshold exits 99: the run is still measured, its exit recorded)
  local deadline=$((SECONDS + JOB_TIMEOUT)) state=""
  while [ $SECONDS -lt $deadline ]; do
    state=$(kubectl -n "$NAMESPACE" get "job/$job" -o json \
      | jq -r '[.status.conditions[]? | select(.status == "True" and (.type == "Complete" or .type == "Failed"))][0]
               | if . then "\(.type) \(.lastTransitionTime)" else "" end')
    [ -n "$state" ] && break
    kubectl -n "$NAMESPACE" wait --for=condition=complete "job/$job" --timeout=30s >/dev/null 2>&1 || true
  done
  stop_sampler
  [ -z "$state" ] || RUN_JOB=""
  kubectl -n "$NAMESPACE" logs "job/$job" --all-containers > "$dir/k6.log" 2>&1 || true
  [ -n "$state" ] || die "job/$job neither completed nor failed within ${JOB_TIMEOUT}s (see $dir/k6.log)"
  [ "${state%% *}" = Complete ] || RUN_EXIT=1
  RUN_K6_START=$(epoch "$(kubectl -n "$NAMESPACE" get "job/$job" -o jsonpath='{.status.startTime}')")
  RUN_T1=$(epoch "${state#* }")
  RUN_T0=$((RUN_T1 - ${DURATION_S%.*}))
}

mode_cleanup() {
  stop_sampler
  if [ -n "$RUN_JOB" ]; then
    log "deleting job/$RUN_JOB (interrupted before it ended)"
    kubectl -n "$NAMESPACE" delete job "$RUN_JOB" --ignore-not-found --wait=false >&2 || true
  fi
  [ -n "$REVISION_BEFORE" ] && [ "$REVISION_BEFORE" != null ] || return 0
  log "rolling $RELEASE back to revision $REVISION_BEFORE"
  helm -n "$NAMESPACE" rollback "$RELEASE" "$REVISION_BEFORE" --wait --timeout 10m >&2 \
    || log "WARNING: could not roll $RELEASE back to revision $REVISION_BEFORE"
}
