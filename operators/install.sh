#!/usr/bin/env bash
# Installs (or upgrades) the operators the newsfeed chart relies on, each at the chart version pinned in
# operators/versions.env (the one whose CRDs ci/tests/charts.sh validates the chart against), with the values files
# in operators/values/:
#   cert-manager, kube-prometheus-stack (Prometheus Operator + Prometheus + Grafana with the dashboard sidecar),
#   CloudNativePG, k8ssandra-operator (+ cass-operator), Solr Operator (+ zookeeper-operator), optionally k6-operator.
# Usage: operators/install.sh [--with-k6-operator] [--dry-run] [component...]
#   components: cert-manager kube-prometheus-stack cloudnative-pg k8ssandra-operator solr-operator k6-operator
#   (default: all but k6-operator). Needs helm >= 3.8 and kubectl pointed at the target cluster.
#   --dry-run prints the commands instead of running them (and needs neither). Re-running it upgrades in place.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VALUES=$HERE/values
TIMEOUT=${OPERATORS_TIMEOUT:-10m}
# shellcheck source=operators/versions.env
source "$HERE/versions.env"

# release name | namespace | chart repository | chart | chart version (all but the namespace from versions.env)
CERT_MANAGER=(cert-manager cert-manager "$CERT_MANAGER_CHART_REPO" "$CERT_MANAGER_CHART" "$CERT_MANAGER_CHART_VERSION")
KPS=(kube-prometheus-stack monitoring "$KUBE_PROMETHEUS_STACK_CHART_REPO" "$KUBE_PROMETHEUS_STACK_CHART"
  "$KUBE_PROMETHEUS_STACK_CHART_VERSION")
CNPG=(cloudnative-pg cnpg-system "$CLOUDNATIVE_PG_CHART_REPO" "$CLOUDNATIVE_PG_CHART" "$CLOUDNATIVE_PG_CHART_VERSION")
K8SSANDRA=(k8ssandra-operator k8ssandra-operator "$K8SSANDRA_OPERATOR_CHART_REPO" "$K8SSANDRA_OPERATOR_CHART"
  "$K8SSANDRA_OPERATOR_CHART_VERSION")
SOLR=(solr-operator solr-operator "$SOLR_OPERATOR_CHART_REPO" "$SOLR_OPERATOR_CHART" "$SOLR_OPERATOR_CHART_VERSION")
# the Solr Operator chart ships no CRDs: the Solr release of the same operator version publishes them
SOLR_CRDS=https://solr.apache.org/operator/downloads/crds/$SOLR_OPERATOR_APP_VERSION/all-with-dependencies.yaml
K6=(k6-operator k6-operator-system "$K6_OPERATOR_CHART_REPO" "$K6_OPERATOR_CHART" "$K6_OPERATOR_CHART_VERSION")

DRY_RUN=false
components=()
with_k6=false
for arg in "$@"; do
  case $arg in
    --dry-run) DRY_RUN=true ;;
    --with-k6-operator) with_k6=true ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $arg" >&2; exit 2 ;;
    *) components+=("$arg") ;;
  esac
done
if [ ${#components[@]} -eq 0 ]; then
  components=(cert-manager kube-prometheus-stack cloudnative-pg k8ssandra-operator solr-operator)
  if $with_k6; then components+=(k6-operator); fi
fi

log() { echo "[operators $(date +%T)] $*" >&2; }
run() {
  if $DRY_RUN; then printf '%q ' "$@"; echo; else "$@"; fi
}

# chart NAME NAMESPACE REPO CHART VERSION: helm upgrade --install with operators/values/NAME.yaml, waiting until ready
chart() {
  local name=$1 namespace=$2 repo=$3 chart=$4 version=$5
  log "$name: chart $chart $version from $repo into namespace $namespace"
  run helm upgrade --install "$name" "$chart" --repo "$repo" --version "$version" \
    --namespace "$namespace" --create-namespace -f "$VALUES/$name.yaml" --wait --timeout "$TIMEOUT"
}

preflight() {
  local tool
  $DRY_RUN && return 0   # printing the commands needs no tool and no cluster (air-gapped mirrors use it)
  for tool in helm kubectl; do
    command -v "$tool" > /dev/null || { echo "$tool is required" >&2; exit 1; }
  done
  kubectl version > /dev/null || { echo "kubectl cannot reach a cluster (check KUBECONFIG / context)" >&2; exit 1; }
}

install_component() {
  case $1 in
    cert-manager) chart "${CERT_MANAGER[@]}" ;;
    kube-prometheus-stack) chart "${KPS[@]}" ;;
    cloudnative-pg) chart "${CNPG[@]}" ;;
    k8ssandra-operator) chart "${K8SSANDRA[@]}" ;;   # its webhooks need cert-manager first
    solr-operator)
      # the Solr Operator chart ships no CRDs: they come from the Solr release, with the ZooKeeper one
      log "solr-operator: CRDs from $SOLR_CRDS"
      run kubectl apply --server-side --force-conflicts -f "$SOLR_CRDS"
      chart "${SOLR[@]}" ;;
    k6-operator) chart "${K6[@]}" ;;
    *) echo "unknown component $1 (see --help)" >&2; exit 2 ;;
  esac
}

preflight
for c in "${components[@]}"; do install_component "$c"; done
log "done: ${components[*]}"
if ! $DRY_RUN; then
  log "next: helm dependency build charts/newsfeed && helm install newsfeed charts/newsfeed -n newsfeed --create-namespace -f values/dev.yaml"
fi
