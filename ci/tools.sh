#!/usr/bin/env bash
# Installs every pinned tool the project needs into ~/.cache/newsfeed and reuses it on later runs.
# Usage: ci/tools.sh [all|apt|go|kube|<tool>...]   (default: all). Prints the bin dir on the last line.
# Warm runs take seconds: each tool is built once per pinned version into its own versioned dir.
set -euo pipefail

HELM_VERSION=v3.22.0
K6_VERSION=v1.8.1
PROMETHEUS_VERSION=v0.316.0      # Go module version of prometheus/promtool 3.x
KUBECONFORM_VERSION=v0.8.0
ACTIONLINT_VERSION=v1.7.12
HELM_DOCS_VERSION=v1.14.2
K8S_VERSION=v1.34.4

CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
TOOLS=$CACHE/tools
BIN=$CACHE/bin
mkdir -p "$TOOLS" "$BIN"
export GOWORK=off GOFLAGS=-buildvcs=false CGO_ENABLED=0
log() { echo "[tools $(date +%T)] $*" >&2; }

# go_tool NAME MODULE_PATH VERSION [TAGS]: `go install` into a versioned dir, then link into $BIN.
go_tool() {
  local name=$1 pkg=$2 version=$3 tags=${4:-} dir="$TOOLS/$1-$3"
  if [ ! -x "$dir/$name" ]; then
    log "building $name $version (first run only)"
    GOBIN="$dir" go install -trimpath -ldflags '-s -w' ${tags:+-tags "$tags"} "$pkg@$version"
  fi
  ln -sfn "$dir/$name" "$BIN/$name"
}

apt_packages() {
  local missing=()
  command -v redis-server >/dev/null || missing+=(redis-server)
  [ -x /usr/bin/etcd ] || missing+=(etcd-server)
  [ -x /usr/lib/postgresql/15/bin/postgres ] || missing+=(postgresql-15)
  command -v shellcheck >/dev/null || missing+=(shellcheck)
  command -v jq >/dev/null || missing+=(jq)
  command -v curl >/dev/null || missing+=(curl)
  command -v openssl >/dev/null || missing+=(openssl)
  [ -x /usr/sbin/nginx ] || missing+=(nginx-light)            # the local gateway (ci/gateway.sh)
  python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)   # the report's matplotlib venv
  if [ ${#missing[@]} -gt 0 ]; then
    log "apt-get install ${missing[*]}"
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    # the Debian packages start their own services: we only want the binaries
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    for svc in redis-server etcd nginx; do $sudo service "$svc" stop >/dev/null 2>&1 || true; done
  fi
  ln -sfn /usr/bin/etcd "$BIN/etcd"
}

go_tools() {
  go_tool helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION"
  go_tool k6 go.k6.io/k6 "$K6_VERSION"
  go_tool promtool github.com/prometheus/prometheus/cmd/promtool "$PROMETHEUS_VERSION" remove_all_sd
  go_tool prometheus github.com/prometheus/prometheus/cmd/prometheus "$PROMETHEUS_VERSION" \
    remove_all_sd,enable_kubernetes_sd,enable_dns_sd
  go_tool kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION"
  go_tool actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION"
  go_tool helm-docs github.com/norwoodj/helm-docs/cmd/helm-docs "$HELM_DOCS_VERSION"
}

# kube-apiserver and kube-controller-manager from the k8s.io/kubernetes module source. Its zip has no
# staging/, so every staging replace is pointed at the published k8s.io/X v0.N.M module instead.
kube_tools() {
  local dir="$TOOLS/kubernetes-$K8S_VERSION" minor=${K8S_VERSION#v1.}
  minor=${minor%%.*}
  local staging=v0.${K8S_VERSION#v1.}
  if [ ! -x "$dir/kube-apiserver" ] || [ ! -x "$dir/kube-controller-manager" ]; then
    local src="$TOOLS/src/kubernetes-$K8S_VERSION"
    if [ ! -f "$src/go.mod" ]; then
      log "fetching k8s.io/kubernetes@$K8S_VERSION source"
      local mod
      mod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
      rm -rf "$src"; mkdir -p "$(dirname "$src")"; cp -r "$mod" "$src"; chmod -R u+w "$src"
      rm -rf "$src/vendor" "$src/go.work" "$src/go.work.sum"   # a vendor/ dir would force -mod=vendor
      sed -i -E "s#^(\s*)k8s.io/([a-z0-9-]+) => ./staging/src/k8s.io/([a-z0-9-]+)\$#\1k8s.io/\2 => k8s.io/\2 $staging#" "$src/go.mod"
    fi
    # without the version ldflags the server reports v0.0.0 and charts' kubeVersion checks fail
    local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION"
    ldflags+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
    ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z"
    mkdir -p "$dir"
    for c in kube-apiserver kube-controller-manager; do
      [ -x "$dir/$c" ] && continue
      log "building $c $K8S_VERSION (first run only, several minutes)"
      (cd "$src" && go build -mod=mod -trimpath -ldflags "$ldflags" -o "$dir/$c.tmp" "./cmd/$c" && mv "$dir/$c.tmp" "$dir/$c")
    done
  fi
  ln -sfn "$dir/kube-apiserver" "$BIN/kube-apiserver"
  ln -sfn "$dir/kube-controller-manager" "$BIN/kube-controller-manager"
}

targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(all)
for t in "${targets[@]}"; do
  case "$t" in
    all) apt_packages; go_tools; kube_tools ;;
    apt) apt_packages ;;
    go) go_tools ;;
    kube) kube_tools ;;
    *) echo "unknown target: $t" >&2; exit 2 ;;
  esac
done
echo "$BIN"
