#!/usr/bin/env bash
# The end-to-end run on a kind cluster (.github/workflows/kind-e2e.yml runs it; so can you, see
# docs/ci-and-images.md): images -> kind, operators, the chart with the dev profile, readiness, `helm test`,
# the k6 smoke job, and the recorded throughput and p95 series asserted from Prometheus.
# Usage: ci/release/kind-e2e.sh [STEP...]   steps: images load operators pinned install ready test smoke prometheus
#        (default: all of them, in that order), diagnose (state and logs, for a failed run), helm-args
#        (prints the image overrides `install` passes, one argument a line; ci/tests/release.sh renders with them)
#        and versions (the operator pins of operators/versions.env as a Markdown table, for the job summary).
# Environment: KIND_CLUSTER (newsfeed), NAMESPACE (newsfeed), RELEASE (newsfeed), VALUES (values/dev.yaml),
# PROMETHEUS_NAMESPACE (monitoring: where operators/install.sh runs Prometheus), RUN_ID (GITHUB_RUN_ID or the
# time), HELM_EXTRA_ARGS (more `helm install` arguments), TIMEOUT (readiness, default 20m).
set -euo pipefail
cd "$(dirname "$0")/../.."
SERVICES=(social-graph outbound inbound search edge)
KIND_CLUSTER=${KIND_CLUSTER:-newsfeed}
NAMESPACE=${NAMESPACE:-newsfeed}
RELEASE=${RELEASE:-newsfeed}
VALUES=${VALUES:-values/dev.yaml}
PROMETHEUS_NAMESPACE=${PROMETHEUS_NAMESPACE:-monitoring}
RUN_ID=${RUN_ID:-${GITHUB_RUN_ID:-$(date +%s)}}
TIMEOUT=${TIMEOUT:-20m}
VERSION=$(bash ci/release/app-version.sh)
IMAGE_PREFIX=ghcr.io/newsfeed-benchmark/newsfeed-
# the operator pins: `operators` installs them (operators/install.sh), `pinned` checks the cluster runs them
# shellcheck source=operators/versions.env
source operators/versions.env
# release=PREFIX: each Helm release operators/install.sh makes, with the prefix of its pins in versions.env
OPERATOR_RELEASES=(cert-manager=CERT_MANAGER kube-prometheus-stack=KUBE_PROMETHEUS_STACK cloudnative-pg=CLOUDNATIVE_PG
  k8ssandra-operator=K8SSANDRA_OPERATOR solr-operator=SOLR_OPERATOR)
log() { echo "[kind-e2e $(date +%T)] $*" >&2; }

step_images() {  # the images under the names and tag the chart uses by default
  local svc
  for svc in "${SERVICES[@]}"; do
    log "building $IMAGE_PREFIX$svc:$VERSION"
    docker build -f services/Dockerfile --build-arg "SERVICE=$svc" --build-arg "VERSION=$VERSION" \
      --build-arg "REVISION=$(git rev-parse HEAD)" -t "$IMAGE_PREFIX$svc:$VERSION" services
  done
}

step_load() {  # no registry: the images go straight into the kind node, and the chart's IfNotPresent finds them
  local svc
  for svc in "${SERVICES[@]}"; do kind load docker-image "$IMAGE_PREFIX$svc:$VERSION" --name "$KIND_CLUSTER"; done
}

step_operators() { bash operators/install.sh; }

# pinned_charts: "release chart-version app-version" of every release `operators` installs, from versions.env
pinned_charts() {
  local r release prefix chart version app
  for r in "${OPERATOR_RELEASES[@]}"; do
    release=${r%%=*} prefix=${r#*=}
    chart=${prefix}_CHART version=${prefix}_CHART_VERSION app=${prefix}_APP_VERSION
    echo "$release ${!chart}-${!version} ${!app}"
  done
}

# the operators' Helm releases run exactly the pinned charts (a chart repository serving something else, or an
# older release left in the cluster, fails here rather than as a CRD mismatch later)
step_pinned() {
  local release want app got rc=0
  while read -r release want app; do
    got=$(helm list -A -o json | jq -r --arg r "$release" '.[] | select(.name == $r) | .chart')
    if [ "$got" = "$want" ]; then log "$release: $got (operator $app)"
    else log "$release: chart ${got:-not installed}, pinned $want"; rc=1; fi
  done < <(pinned_charts)
  return "$rc"
}

step_versions() {
  echo "| operator release | chart | operator |"
  echo "|---|---|---|"
  pinned_charts | awk '{print "| " $1 " | " $2 " | " $3 " |"}'
}

# this commit's images, never pulled: a missing image fails the pod instead of silently running an older one
image_overrides() {
  local svc
  for svc in "${SERVICES[@]}"; do echo "--set"; echo "$svc.image.tag=$VERSION,$svc.image.pullPolicy=Never"; done
}

step_install() {
  local extra=() images=()
  read -r -a extra <<< "${HELM_EXTRA_ARGS:-}"
  mapfile -t images < <(image_overrides)
  helm dependency build charts/newsfeed
  helm upgrade --install "$RELEASE" charts/newsfeed -n "$NAMESPACE" --create-namespace -f "$VALUES" \
    "${images[@]}" --wait --timeout "$TIMEOUT" "${extra[@]}"
}

step_ready() {
  kubectl -n "$NAMESPACE" wait --for=condition=Available deployment --all --timeout "$TIMEOUT"
  local d
  for d in $(kubectl -n "$NAMESPACE" get deployment -o name); do
    kubectl -n "$NAMESPACE" rollout status "$d" --timeout "$TIMEOUT"
  done
}

step_test() { helm test "$RELEASE" -n "$NAMESPACE" --logs --timeout 10m; }

step_smoke() {  # one run of the chart's k6 smoke CronJob, now
  local job=smoke-$RUN_ID deadline=$((SECONDS + 900)) succeeded failed
  kubectl -n "$NAMESPACE" create job --from="cronjob/$RELEASE-k6-smoke" "$job"
  while :; do
    succeeded=$(kubectl -n "$NAMESPACE" get job "$job" -o jsonpath='{.status.succeeded}')
    failed=$(kubectl -n "$NAMESPACE" get job "$job" -o jsonpath='{.status.conditions[?(@.type=="Failed")].status}')
    if [ "${succeeded:-0}" -ge 1 ] || [ "$failed" = True ] || [ $SECONDS -ge $deadline ]; then break; fi
    sleep 5
  done
  kubectl -n "$NAMESPACE" logs "job/$job" --all-containers --tail=200 || true
  [ "${succeeded:-0}" -ge 1 ] || { log "job $job did not succeed"; return 1; }
}

step_prometheus() {  # the per-minute series the chart's recording rules made from the services' metrics
  local port=19090 pf rc=0
  kubectl -n "$PROMETHEUS_NAMESPACE" port-forward svc/prometheus-operated "$port:9090" >/dev/null &
  pf=$!
  local deadline=$((SECONDS + 60))
  until curl -sf -m 2 -o /dev/null "http://127.0.0.1:$port/-/ready"; do
    if [ $SECONDS -ge $deadline ]; then kill "$pf"; log "no Prometheus behind the port-forward"; return 1; fi
    sleep 1
  done
  bash ci/release/assert-recorded.sh "http://127.0.0.1:$port" || rc=$?
  kill "$pf"
  return "$rc"
}

step_diagnose() {
  kubectl get nodes -o wide || true
  kubectl get pods -A -o wide || true
  helm list -A || true
  kubectl -n "$NAMESPACE" get all,jobs,cronjobs,pvc || true
  kubectl -n "$NAMESPACE" get events --sort-by=.lastTimestamp | tail -n 60 || true
  local p
  for p in $(kubectl -n "$NAMESPACE" get pods -o name 2>/dev/null); do
    echo "--- $p"; kubectl -n "$NAMESPACE" logs "$p" --all-containers --tail=80 || true
  done
}

steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(images load operators pinned install ready test smoke prometheus)
for s in "${steps[@]}"; do
  case "$s" in
    helm-args) image_overrides ;;
    versions) step_versions ;;
    images|load|operators|pinned|install|ready|test|smoke|prometheus|diagnose) log "step $s"; "step_$s" ;;
    *) echo "unknown step: $s" >&2; exit 2 ;;
  esac
done
