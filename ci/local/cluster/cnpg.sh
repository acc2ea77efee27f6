#!/usr/bin/env bash
# The CloudNativePG operator in the local node (ci/local/cluster.sh), namespace `cnpg-system`: the chart's
# `postgresql.enabled=true` Cluster becomes a real PostgreSQL pod on a local-path volume, run from the image
# ci/local/cluster/images.sh builds from Debian's postgresql-15. Operator image and release manifest come from
# `bash ci/local/tools.sh cnpg` (~/.cache/newsfeed/cnpg); the manifest is applied as released, with the local image
# (imagePullPolicy Never) instead of ghcr.io's.
#
# Usage: ci/local/cluster/cnpg.sh up|down|status
#   up      imports the image, applies the manifest (server-side), waits for the operator's rollout and for its
#           webhooks to answer (a server-side dry run of a Cluster). Idempotent.
#   down    deletes the operator and its cluster-wide objects; the CRDs only when no Cluster is left anywhere
#   status  the operator's pods and the Clusters of every namespace; exit 3 when not up
# Environment: NEWSFEED_RUN (which node, as ci/local/cluster.sh), CNPG_TIMEOUT (seconds per wait, default 300).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
BIN=${NEWSFEED_BIN:-$CACHE/bin}
CNPG=$CACHE/cnpg
TIMEOUT=${CNPG_TIMEOUT:-300}
NS=cnpg-system
UPSTREAM_IMAGE=ghcr.io/cloudnative-pg/cloudnative-pg
log() { echo "[cnpg $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

eval "$(bash "$ROOT/ci/local/cluster.sh" env)"
kc() { "$BIN/kubectl" "$@"; }

load_images_env() {
  [ -f "$CNPG/images.env" ] || die "$CNPG/images.env missing: run bash ci/local/tools.sh cnpg"
  # shellcheck source=/dev/null
  . "$CNPG/images.env"
}
archive() { local r=${1#localhost/}; echo "$CNPG/${r//[:\/]/_}.tar"; }

# the release manifest with the local operator image, never pulled
render() {
  sed -e "s|image: $UPSTREAM_IMAGE:${CNPG_VERSION#v}|image: $CNPG_OPERATOR_IMAGE|" \
      -e "s|value: $UPSTREAM_IMAGE:${CNPG_VERSION#v}|value: $CNPG_OPERATOR_IMAGE|" \
      -e "s|imagePullPolicy: Always|imagePullPolicy: Never|" "$CNPG_MANIFEST"
}

# the webhooks answer when a Cluster passes the mutating and validating webhooks in a server-side dry run
webhooks_ready() {
  kc -n "$NS" create --dry-run=server -f - <<'EOF'
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
metadata: {name: webhook-probe}
spec:
  instances: 1
  storage: {size: 1Gi}
EOF
}

wait_for() {
  local desc=$1 deadline=$((SECONDS + TIMEOUT)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { log "timed out after ${TIMEOUT}s waiting for $desc"; return 1; }
    sleep 1
  done
}

diagnose() {
  kc -n "$NS" get deployment,pods,events -o wide >&2 || true
  kc -n "$NS" logs deploy/cnpg-controller-manager --tail=30 >&2 || true
}

up() {
  local t0=$SECONDS
  load_images_env
  kc get --raw /readyz >/dev/null 2>&1 || die "the node is not up (bash ci/local/cluster.sh up)"
  [ -f "$(archive "$CNPG_OPERATOR_IMAGE")" ] || die "$(archive "$CNPG_OPERATOR_IMAGE") missing: run bash ci/local/tools.sh cnpg"
  bash "$ROOT/ci/local/cluster.sh" import "$(archive "$CNPG_OPERATOR_IMAGE")" 2>/dev/null || die "import of $CNPG_OPERATOR_IMAGE failed"
  grep -q "image: $UPSTREAM_IMAGE:${CNPG_VERSION#v}" "$CNPG_MANIFEST" || die "$CNPG_MANIFEST names no $UPSTREAM_IMAGE:${CNPG_VERSION#v}"
  # server-side: the CRDs exceed the client-side last-applied annotation limit
  render | kc apply --server-side --force-conflicts --field-manager=newsfeed-cnpg -f - >/dev/null
  kc wait --for=condition=Established --timeout="${TIMEOUT}s" crd/clusters.postgresql.cnpg.io >/dev/null
  kc -n "$NS" rollout status deployment/cnpg-controller-manager --timeout="${TIMEOUT}s" >/dev/null ||
    { diagnose; die "the operator did not become ready"; }
  wait_for "the operator's webhooks" webhooks_ready || { diagnose; die "the webhooks do not answer"; }
  log "CloudNativePG $CNPG_VERSION up in $((SECONDS - t0)) s"
}

# without_crds: the rendered manifest minus its CustomResourceDefinitions (documents split on `---` lines)
without_crds() {
  python3 -c 'import re,sys; docs = re.split(r"(?m)^---\s*$", sys.stdin.read())
print("\n---\n".join(d for d in docs if not re.search(r"(?m)^kind: CustomResourceDefinition$", d)))'
}

down() {
  local t0=$SECONDS clusters
  load_images_env
  clusters=$(kc get clusters.postgresql.cnpg.io -A --no-headers 2>/dev/null | awk '{print $1 "/" $2}' || true)
  if [ -n "$clusters" ]; then
    render | without_crds | kc delete --ignore-not-found --wait --timeout="${TIMEOUT}s" -f - >/dev/null
    log "CRDs kept: still used by $(echo "$clusters" | wc -l) Cluster(s): $(echo "$clusters" | head -n 3 | xargs)"
  else
    render | kc delete --ignore-not-found --wait --timeout="${TIMEOUT}s" -f - >/dev/null
  fi
  log "down in $((SECONDS - t0)) s"
}

status() {
  kc get namespace "$NS" >/dev/null 2>&1 || { echo "cnpg: not installed"; return 3; }
  kc -n "$NS" get deployment,pods -o wide
  kc get clusters.postgresql.cnpg.io -A 2>/dev/null || true
  kc -n "$NS" rollout status deployment/cnpg-controller-manager --timeout=1s >/dev/null 2>&1 || { echo "cnpg: not ready"; return 3; }
  echo "cnpg: ready"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
