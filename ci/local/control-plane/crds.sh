#!/usr/bin/env bash
# The CustomResourceDefinitions the charts render objects of, taken from the operators' own Go module zips
# (versions from operators/versions.env, checked by the Go checksum database) and applied to the local control plane.
# Usage: ci/local/control-plane/crds.sh fetch           # cache them under ~/.cache/newsfeed/crds/<module>-<version>/:
#                                                #   crds.yaml (all) and split/<crd name>.yaml (one each)
#        ci/local/control-plane/crds.sh apply [NAME...] # fetch + server-side apply to $KUBECONFIG (all, or the CRDs
#                                                #   named like servicemonitors.monitoring.coreos.com), wait Established
#        ci/local/control-plane/crds.sh files           # print the cached crds.yaml files (fetching first)
#        ci/local/control-plane/crds.sh modules         # print the pinned "module version" pairs (nothing fetched)
set -euo pipefail

CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/crds
# shellcheck source=operators/versions.env
source "$(dirname "${BASH_SOURCE[0]}")/../../../operators/versions.env"
# module version sources...: a source dir with a kustomization.yaml is built the operator's way
# (`kubectl kustomize`, applies its CRD patches), otherwise every CRD document in the file/dir is taken.
MODULES=(
  # the chart renders no cert-manager object today; its CRDs are here so one added (a Certificate for the
  # Ingress, an Issuer) is validated against the version operators/install.sh installs
  "$CERT_MANAGER_MODULE $CERT_MANAGER_MODULE_VERSION deploy/crds"
  "$CLOUDNATIVE_PG_MODULE $CLOUDNATIVE_PG_MODULE_VERSION config/crd"
  "$KUBE_PROMETHEUS_STACK_MODULE $KUBE_PROMETHEUS_STACK_MODULE_VERSION example/prometheus-operator-crd-full"
  "$K8SSANDRA_OPERATOR_MODULE $K8SSANDRA_OPERATOR_MODULE_VERSION config/crd"
  # K8ssandraCluster is turned into CassandraDatacenter objects by cass-operator: the version in
  # k8ssandra-operator's go.mod
  "$CASS_OPERATOR_MODULE $CASS_OPERATOR_MODULE_VERSION config/crd"
  # SolrCloud can reference a ZookeeperCluster (the zookeeper-operator CRD the solr-operator ships)
  "$SOLR_OPERATOR_MODULE $SOLR_OPERATOR_MODULE_VERSION config/crd config/dependencies/zookeeper_cluster_crd.yaml"
  "$K6_OPERATOR_MODULE $K6_OPERATOR_MODULE_VERSION config/crd"
  # Gateway API standard channel: the chart can render an HTTPRoute
  "$GATEWAY_API_MODULE $GATEWAY_API_MODULE_VERSION config/crd"
)
# Modules missing from the checksum database: verified against this h1: hash instead (the one recorded
# in k8ssandra-operator's go.sum).
declare -A PINNED_SUM=(
  ["$CASS_OPERATOR_MODULE@$CASS_OPERATOR_MODULE_VERSION"]=$CASS_OPERATOR_MODULE_SUM
)

log() { echo "[crds $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

module_dir() {
  local mv=$1 json sum
  if [ -n "${PINNED_SUM[$mv]:-}" ]; then
    json=$(GOWORK=off GOFLAGS=-mod=mod GONOSUMDB="${mv%@*}" go mod download -json "$mv")
    sum=$(jq -r .Sum <<<"$json")
    [ "$sum" = "${PINNED_SUM[$mv]}" ] || die "$mv: checksum $sum, expected ${PINNED_SUM[$mv]}"
  else
    json=$(GOWORK=off GOFLAGS=-mod=mod go mod download -json "$mv")
  fi
  jq -er .Dir <<<"$json" || die "go mod download $mv: $(jq -r .Error <<<"$json")"
}

# Prints the CRD documents of one source (absolute path: kustomize reads relative github.com/... as a URL).
crd_docs() {
  local path=$1 f
  if [ -f "$path/kustomization.yaml" ]; then
    # (its deprecation warnings about the operators' kustomization files are noise here)
    kubectl kustomize "$path" 2> >(grep -v '^# Warning' >&2)
  elif [ -d "$path" ]; then
    for f in "$path"/*.yaml; do printf -- '---\n'; cat "$f"; done
  else
    printf -- '---\n'; cat "$path"
  fi
}

cache_name() { local m=$1 v=$2; echo "${m##*/}-$v"; }

fetch_one() {
  local module=$1 version=$2; shift 2
  local out; out=$CACHE/$(cache_name "$module" "$version")
  [ -s "$out/crds.yaml" ] && [ -d "$out/split" ] && return 0
  log "extracting CRDs of $module@$version"
  local dir src tmp; dir=$(module_dir "$module@$version")
  mkdir -p "$out"; tmp=$(mktemp "$out/.crds.XXXXXX")
  for src in "$@"; do
    [ -e "$dir/$src" ] || die "$module@$version has no $src"
    crd_docs "$dir/$src" >> "$tmp"
  done
  grep -q '^kind: CustomResourceDefinition' "$tmp" || die "no CRD found in $module@$version $*"
  rm -rf "$out/split"; mkdir -p "$out/split"
  split_crds "$out/split" < "$tmp"
  chmod 644 "$tmp"; mv "$tmp" "$out/crds.yaml"
}

# split_crds DIR < multi-document YAML: each CustomResourceDefinition into DIR/<metadata.name>.yaml
split_crds() {
  awk -v dir="$1" '
    function flush() { if (name != "" && crd) { f = dir "/" name ".yaml"; printf "%s", doc > f; close(f) } doc = ""; name = ""; crd = 0; meta = 0 }
    /^---/ { flush(); next }
    { doc = doc $0 "\n" }
    /^kind: CustomResourceDefinition/ { crd = 1 }
    /^metadata:/ { meta = 1; next }
    /^[^ #]/ { meta = 0 }
    meta && name == "" && /^  name: / { name = $2 }
    END { flush() }'
}

fetch() {
  local line
  for line in "${MODULES[@]}"; do
    # shellcheck disable=SC2086   # the line is "module version sources..."
    fetch_one $line
  done
}

modules() {
  local line m v
  for line in "${MODULES[@]}"; do
    read -r m v _ <<<"$line"
    echo "$m $v"
  done
}

files() {
  local line m v
  for line in "${MODULES[@]}"; do
    read -r m v _ <<<"$line"
    echo "$CACHE/$(cache_name "$m" "$v")/crds.yaml"
  done
}

apply() {
  [ -n "${KUBECONFIG:-}" ] || die "KUBECONFIG not set (eval \"\$(ci/local/control-plane.sh env)\")"
  fetch
  local f name args=()
  if [ $# -eq 0 ]; then
    while read -r f; do args+=(-f "$f"); done < <(files)
  else
    for name in "$@"; do
      f=$(ls "$CACHE"/*/split/"$name.yaml" 2>/dev/null | head -n 1)
      [ -n "$f" ] || die "no CRD $name in the pinned modules"
      args+=(-f "$f")
    done
  fi
  # server-side: the larger CRDs exceed the client-side last-applied annotation limit
  kubectl apply --server-side --force-conflicts --field-manager=newsfeed-ci "${args[@]}" >/dev/null ||
    die "applying the CRDs failed"
  kubectl wait --for=condition=Established --timeout=120s crd --all >/dev/null ||
    die "CRDs not Established in 120s"
  log "$(kubectl get crd --no-headers | wc -l) CRDs Established"
}

case "${1:-}" in
  fetch) fetch ;;
  apply) shift; apply "$@" ;;
  files) fetch; files ;;
  modules) modules ;;
  *) echo "usage: $0 fetch|apply [CRD_NAME...]|files|modules" >&2; exit 2 ;;
esac
