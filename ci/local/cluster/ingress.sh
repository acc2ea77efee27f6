#!/usr/bin/env bash
# The ingress controller of the local node (ci/local/cluster.sh): Traefik (`bash ci/local/tools.sh ingress`) in namespace
# `ingress`, serving the Ingresses of IngressClass `nginx` through its kubernetesIngressNGINX provider, so the
# chart's Ingress works as written for ingress-nginx (ci/local/cluster/ingress/values.yaml turns it on).
#
# Usage: ci/local/cluster/ingress.sh up|down|status|url
#   up      imports the image, applies ci/local/cluster/ingress/traefik.yaml (namespace, RBAC, IngressClass nginx,
#           Deployment, Service), waits until Traefik answers /ping; prints its URL. Idempotent.
#   down    deletes the namespace, the IngressClass and the cluster-wide RBAC
#   status  the objects, readiness, URL and memory; exit 3 when not up
#   url     http://<ClusterIP>: reachable from this machine (kube-proxy runs on it) and from pods, where it is
#           also http://traefik.ingress.svc.cluster.local
# Environment: NEWSFEED_RUN (which node, as ci/local/cluster.sh), INGRESS_TIMEOUT (seconds per wait, default 180).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
BIN=${NEWSFEED_BIN:-$CACHE/bin}
IMAGES=$CACHE/ingress
TIMEOUT=${INGRESS_TIMEOUT:-180}
NS=ingress
PART_OF=app.kubernetes.io/part-of=newsfeed-ingress
log() { echo "[ingress $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

eval "$(bash "$ROOT/ci/local/cluster.sh" env)"
kc() { "$BIN/kubectl" "$@"; }

url() {
  local ip
  ip=$(kc -n "$NS" get service traefik -o jsonpath='{.spec.clusterIP}' 2>/dev/null) && [ -n "$ip" ] || return 1
  echo "http://$ip"
}
# Traefik's /ping is on the pod's port 8080, not on the Service: ask the pod through the apiserver's proxy
ready() { kc -n "$NS" get --raw "/api/v1/namespaces/$NS/pods/$(pod):8080/proxy/ping" 2>/dev/null | grep -x OK > /dev/null; }
pod() { kc -n "$NS" get pods -l app.kubernetes.io/name=traefik -o jsonpath='{.items[0].metadata.name}'; }

up() {
  local t0=$SECONDS tar
  [ -f "$IMAGES/images.env" ] || die "$IMAGES/images.env missing: run bash ci/local/tools.sh ingress"
  # shellcheck source=/dev/null
  . "$IMAGES/images.env"
  kc get --raw /readyz >/dev/null 2>&1 || die "the node is not up (bash ci/local/cluster.sh up)"
  tar=$IMAGES/$(echo "${TRAEFIK_IMAGE#localhost/}" | tr ':/' '__').tar
  [ -f "$tar" ] || die "$tar missing: run bash ci/local/tools.sh ingress"
  bash "$ROOT/ci/local/cluster.sh" import "$tar" 2>/dev/null || die "import of $TRAEFIK_IMAGE failed"
  sed "s|@TRAEFIK_IMAGE@|$TRAEFIK_IMAGE|g" "$HERE/ingress/traefik.yaml" |
    kc apply --server-side --force-conflicts --field-manager=newsfeed-ingress -f - >/dev/null
  if ! kc -n "$NS" rollout status deployment/traefik --timeout="${TIMEOUT}s" >/dev/null || ! ready; then
    kc -n "$NS" get pods,events -o wide >&2 || true
    kc -n "$NS" logs deploy/traefik --tail=30 >&2 || true
    die "Traefik did not become ready"
  fi
  log "up in $((SECONDS - t0)) s: Traefik ${TRAEFIK_VERSION} at $(url) (in pods: http://traefik.$NS.svc.cluster.local)"
  url
}

down() {
  local t0=$SECONDS
  kc delete namespace "$NS" --wait --timeout="${TIMEOUT}s" --ignore-not-found >/dev/null
  kc delete ingressclass,clusterrole,clusterrolebinding -l "$PART_OF" --ignore-not-found >/dev/null
  log "down in $((SECONDS - t0)) s"
}

status() {
  local top
  kc get namespace "$NS" >/dev/null 2>&1 || { echo "ingress: not installed"; return 3; }
  kc -n "$NS" get deployment,pods,services -o wide
  kc get ingressclass -l "$PART_OF"
  kc get ingress -A 2>/dev/null | sed 's/^/  /'
  top=$(kc -n "$NS" top pods --no-headers 2>/dev/null || true)
  [ -z "$top" ] || { echo "memory (metrics-server):"; echo "$top"; }
  if ready; then echo "traefik: ready at $(url)"; return 0; fi
  echo "traefik: not ready"; return 3
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  url) url || die "no Service $NS/traefik (ci/local/cluster/ingress.sh up)" ;;
  *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
