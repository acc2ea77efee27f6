#!/usr/bin/env bash
# The Prometheus Operator v0.85.0 and one Prometheus in the local node (ci/local/cluster.sh), namespace `monitoring`:
# the chart's ServiceMonitors and PrometheusRule are what it scrapes and evaluates, and k6 pods remote-write
# to it. Binaries, images and CRDs come from `bash ci/local/tools.sh prometheus-operator` (~/.cache/newsfeed/monitoring).
#
# Usage: ci/local/cluster/monitoring.sh up|down|status|url
#   up      imports the three images, applies the CRDs, the operator (ci/local/cluster/monitoring/operator.yaml) and
#           the Prometheus (monitoring/prometheus.yaml), waits until Prometheus answers /-/ready; prints its URL.
#           Idempotent (server-side apply).
#   down    deletes the Prometheus, the namespace and the cluster-wide RBAC, then the CRDs unless some
#           ServiceMonitor, PodMonitor, Probe, ScrapeConfig or PrometheusRule still uses them
#   status  the objects, readiness, URL and memory of the pods; exit 3 when not up
#   url     http://<ClusterIP>:9090: reachable from this machine (kube-proxy runs on it) and from pods;
#           in pods also http://kube-prometheus-stack-prometheus.monitoring.svc:9090
# Environment: NEWSFEED_RUN (which node, as ci/local/cluster.sh), MONITORING_TIMEOUT (seconds per wait, default 300).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
BIN=${NEWSFEED_BIN:-$CACHE/bin}
MON=$CACHE/monitoring
TIMEOUT=${MONITORING_TIMEOUT:-300}
NS=monitoring
PROMETHEUS=newsfeed                       # the Prometheus CR; its StatefulSet is prometheus-newsfeed
SERVICE=kube-prometheus-stack-prometheus
PART_OF=app.kubernetes.io/part-of=newsfeed-monitoring
log() { echo "[monitoring $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# the node's kubeconfig (ci/local/cluster.sh env prints `export KUBECONFIG=...` for its run dir)
eval "$(bash "$ROOT/ci/local/cluster.sh" env)"
kc() { "$BIN/kubectl" "$@"; }

load_images_env() {
  [ -f "$MON/images.env" ] || die "$MON/images.env missing: run bash ci/local/tools.sh prometheus-operator"
  # shellcheck source=/dev/null
  . "$MON/images.env"
}
archive() { local r=${1#localhost/}; echo "$MON/${r//[:\/]/_}.tar"; }

# render FILE: the manifest with the image names and the Prometheus release filled in
render() {
  sed -e "s|@PROMETHEUS_OPERATOR_IMAGE@|$PROMETHEUS_OPERATOR_IMAGE|g" \
      -e "s|@PROMETHEUS_CONFIG_RELOADER_IMAGE@|$PROMETHEUS_CONFIG_RELOADER_IMAGE|g" \
      -e "s|@PROMETHEUS_IMAGE@|$PROMETHEUS_IMAGE|g" -e "s|@PROMETHEUS_RELEASE@|$PROMETHEUS_RELEASE|g" "$1"
}
apply() { kc apply --server-side --force-conflicts --field-manager=newsfeed-monitoring -f - >/dev/null; }

url() {
  local ip
  ip=$(kc -n "$NS" get service "$SERVICE" -o jsonpath='{.spec.clusterIP}' 2>/dev/null) && [ -n "$ip" ] || return 1
  echo "http://$ip:9090"
}

# wait_for DESC CMD...: polls CMD until it succeeds, TIMEOUT seconds at most
wait_for() {
  local desc=$1 deadline=$((SECONDS + TIMEOUT)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { log "timed out after ${TIMEOUT}s waiting for $desc"; return 1; }
    sleep 1
  done
}
ready() { local u; u=$(url) && curl -sf -m 3 -o /dev/null "$u/-/ready"; }
statefulset_exists() { kc -n "$NS" get statefulset "prometheus-$PROMETHEUS"; }

diagnose() {
  kc -n "$NS" get prometheus,statefulset,pods,events -o wide >&2 || true
  kc -n "$NS" logs deploy/prometheus-operator --tail=20 >&2 || true
}

up() {
  local t0=$SECONDS ref
  load_images_env
  kc get --raw /readyz >/dev/null 2>&1 || die "the node is not up (bash ci/local/cluster.sh up)"
  for ref in "$PROMETHEUS_OPERATOR_IMAGE" "$PROMETHEUS_CONFIG_RELOADER_IMAGE" "$PROMETHEUS_IMAGE"; do
    [ -f "$(archive "$ref")" ] || die "$(archive "$ref") missing: run bash ci/local/tools.sh prometheus-operator"
    bash "$ROOT/ci/local/cluster.sh" import "$(archive "$ref")" 2>/dev/null || die "import of $ref failed"
  done
  log "images imported ($((SECONDS - t0)) s)"
  # server-side: the larger CRDs exceed the client-side last-applied annotation limit
  apply < "$MON/crds.yaml"
  kc wait --for=condition=Established --timeout="${TIMEOUT}s" -f "$MON/crds.yaml" >/dev/null
  render "$HERE/monitoring/operator.yaml" | apply
  kc -n "$NS" rollout status deployment/prometheus-operator --timeout="${TIMEOUT}s" >/dev/null ||
    { diagnose; die "the operator did not become ready"; }
  log "CRDs and operator ready ($((SECONDS - t0)) s)"
  render "$HERE/monitoring/prometheus.yaml" | apply
  wait_for "the operator to create statefulset prometheus-$PROMETHEUS" statefulset_exists || { diagnose; return 1; }
  kc -n "$NS" rollout status "statefulset/prometheus-$PROMETHEUS" --timeout="${TIMEOUT}s" >/dev/null ||
    { diagnose; die "prometheus-$PROMETHEUS did not become ready"; }
  wait_for "Prometheus /-/ready through the Service" ready || { diagnose; return 1; }
  log "up in $((SECONDS - t0)) s: Prometheus $PROMETHEUS_RELEASE at $(url) (in pods: http://$SERVICE.$NS.svc:9090)"
  url
}

# CRs of the operator's kinds outside our namespace: while some exist the CRDs stay
crd_users() {
  local kind
  for kind in servicemonitors podmonitors probes scrapeconfigs prometheusrules; do
    kc get "$kind.monitoring.coreos.com" -A --no-headers 2>/dev/null | awk -v k="$kind" -v ns="$NS" '$1 != ns {print k " " $1 "/" $2}'
  done
}

down() {
  local t0=$SECONDS users
  # the CR first, while the operator still runs (it owns the StatefulSet and may hold finalizers)
  kc -n "$NS" delete prometheus --all --wait --timeout="${TIMEOUT}s" --ignore-not-found >/dev/null 2>&1 || true
  kc delete namespace "$NS" --wait --timeout="${TIMEOUT}s" --ignore-not-found >/dev/null
  kc delete clusterrole,clusterrolebinding -l "$PART_OF" --ignore-not-found >/dev/null
  if kc get crd prometheuses.monitoring.coreos.com >/dev/null 2>&1; then
    users=$(crd_users)
    if [ -n "$users" ]; then
      log "CRDs kept: still used by $(echo "$users" | wc -l) object(s): $(echo "$users" | head -n 3 | xargs)"
    else
      kc delete -f "$MON/crds.yaml" --wait --ignore-not-found >/dev/null
    fi
  fi
  log "down in $((SECONDS - t0)) s"
}

status() {
  local u pods
  kc get namespace "$NS" >/dev/null 2>&1 || { echo "monitoring: not installed"; return 3; }
  kc -n "$NS" get prometheus,statefulset,deployment,pods,services -o wide
  pods=$(kc -n "$NS" top pods --containers --no-headers 2>/dev/null || true)
  [ -z "$pods" ] || { echo "memory (metrics-server):"; echo "$pods"; }
  if ready; then u=$(url); echo "prometheus: ready at $u"; return 0; fi
  echo "prometheus: not ready"; return 3
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  url) url || die "no Service $NS/$SERVICE (ci/local/cluster/monitoring.sh up)" ;;
  *) echo "usage: $0 up|down|status|url" >&2; exit 2 ;;
esac
