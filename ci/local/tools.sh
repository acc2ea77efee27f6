#!/usr/bin/env bash
# Installs every pinned tool the project needs into ~/.cache/newsfeed and reuses it on later runs.
# Usage: ci/local/tools.sh [all|apt|go|exporters|npm|kube|node|prometheus-operator|ingress|cnpg|jaeger...]   (default: all). Prints the bin dir on the last line.
#   node: what the local Kubernetes node needs (ci/local/cluster.sh): Debian's containerd, runc, CNI plugins,
#         iptables...; kubelet, kube-scheduler, kube-proxy, kubectl from the same source tree as `kube`;
#         CoreDNS, metrics-server, local-path-provisioner, a small CRI client, the pause binary and their image
#         archives. Not part of `all`: ~5 more minutes cold, and only the cluster suite and `make cluster-up` use it.
#   cnpg: the CloudNativePG operator for the node (ci/local/cluster/cnpg.sh): its image and release manifest.
#   jaeger: Jaeger (v2, all-in-one) for the local traces (ci/local/jaeger.sh); not part of `all`: ~5 minutes cold,
#         and only tracing (the tracing suite, `TRACING=1 make demo`, `make jaeger-up`) uses it.
# Warm runs take seconds: each tool is built once per pinned version into its own versioned dir.
set -euo pipefail

HELM_VERSION=v3.22.0
K6_VERSION=v1.8.1
PROMETHEUS_VERSION=v0.316.0      # Go module version of prometheus/promtool 3.x
KUBECONFORM_VERSION=v0.8.0
ACTIONLINT_VERSION=v1.7.12
HELM_DOCS_VERSION=v1.14.2
K8S_VERSION=v1.34.4
COREDNS_VERSION=v1.14.7
METRICS_SERVER_VERSION=v0.9.0
LOCAL_PATH_PROVISIONER_VERSION=v0.0.30   # the newest the module proxy serves here
GRAFANA_SCHEMA_VERSION=13.2.3   # npm @grafana/schema: the dashboard model's types, checked with TypeScript
TYPESCRIPT_VERSION=5.9.3
JAEGER_VERSION=v1.76.0          # its cmd/jaeger is Jaeger v2: OTLP receiver, in-memory storage, query API
REDIS_EXPORTER_VERSION=v1.74.0  # the newest the module proxy serves here (the chart's Redis runs 1.75.0)
# the checksum database does not know this version: its module zip is checked against this sum instead
REDIS_EXPORTER_SUM=h1:/ESQZa3xqpQxiQmk4tpo90Y8gPWLpYVF6E5SR262KtM=
POSTGRES_EXPORTER_VERSION=v0.17.1   # runs only the project's CloudNativePG-named queries (ci/local/stack/postgresql)
POSTGRES_EXPORTER_SUM=h1:+gByb2KEhVoQ9Klf+JQHua9ff6+aT5YtkGJB2p65/iE=   # as REDIS_EXPORTER_SUM

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
  [ -x /usr/sbin/nginx ] || missing+=(nginx-light)            # the local gateway (ci/local/gateway.sh)
  command -v iptables >/dev/null || missing+=(iptables)       # the fault suite's dropped packets (ci/tests/faults/inject.sh)
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

# Grafana's dashboard schema as its npm package publishes it (TypeScript types) and the compiler that checks a
# dashboard against them (ci/tests/observability/check_dashboard_schema.sh), installed once per version pair.
npm_tools() {
  local dir="$TOOLS/grafana-schema-$GRAFANA_SCHEMA_VERSION-ts-$TYPESCRIPT_VERSION"
  if [ ! -x "$dir/node_modules/.bin/tsc" ] || [ ! -f "$dir/node_modules/@grafana/schema/package.json" ]; then
    log "installing @grafana/schema $GRAFANA_SCHEMA_VERSION and typescript $TYPESCRIPT_VERSION (first run only)"
    mkdir -p "$dir"
    printf '{"private": true, "dependencies": {"@grafana/schema": "%s", "typescript": "%s"}}\n' \
      "$GRAFANA_SCHEMA_VERSION" "$TYPESCRIPT_VERSION" > "$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
  fi
  ln -sfn "$dir" "$CACHE/grafana-schema"
}

json_field() { python3 -c 'import json, sys; print(json.load(sys.stdin).get(sys.argv[1], ""))' "$1"; }

# module_tool NAME MODULE VERSION PACKAGE [SUM]: builds PACKAGE (relative to the module's root) inside a copy of
# the module, into a versioned dir linked into $BIN. For modules `go install M@V` refuses: it asks the proxy for the
# version list (refused here), and refuses a go.mod with replace directives. With SUM the module zip must have that
# checksum (for a version the checksum database does not know).
module_tool() {
  local name=$1 module=$2 version=$3 pkg=$4 sum=${5:-} dir="$TOOLS/$1-$3"
  if [ ! -x "$dir/$name" ]; then
    log "building $name $version (first run only)"
    local info mod
    if [ -n "$sum" ]; then
      info=$(GONOSUMDB="$module" go mod download -json "$module@$version")
      [ "$(json_field Sum <<< "$info")" = "$sum" ] || { log "$module@$version: checksum is not $sum"; return 1; }
    else
      info=$(go mod download -json "$module@$version")
    fi
    mod=$(json_field Dir <<< "$info")
    rm -rf "$dir/src"; mkdir -p "$dir"; cp -r "$mod" "$dir/src"; chmod -R u+w "$dir/src"
    (cd "$dir/src" && GOTOOLCHAIN=local go build -mod=mod -trimpath -ldflags '-s -w' -o "$dir/$name.tmp" "$pkg")
    mv "$dir/$name.tmp" "$dir/$name"; rm -rf "$dir/src"
  fi
  ln -sfn "$dir/$name" "$BIN/$name"
}

# Jaeger v2 (its go.mod has a replace directive). The module carries no web UI (built from another repository): the
# query service answers its HTTP API and shows a placeholder page.
jaeger_tool() {
  module_tool jaeger github.com/jaegertracing/jaeger "$JAEGER_VERSION" ./cmd/jaeger
}

# The exporters the local stack runs beside Redis and PostgreSQL (ci/local/stack/stores/redis.sh, postgresql.sh)
exporter_tools() {
  module_tool redis_exporter github.com/oliver006/redis_exporter "$REDIS_EXPORTER_VERSION" . "$REDIS_EXPORTER_SUM"
  module_tool postgres_exporter github.com/prometheus-community/postgres_exporter "$POSTGRES_EXPORTER_VERSION" \
    ./cmd/postgres_exporter "$POSTGRES_EXPORTER_SUM"
}

# Kubernetes binaries from the k8s.io/kubernetes module source, fetched and prepared once for all of them.
# Its zip has no staging/, so every staging replace is pointed at the published k8s.io/X v0.N.M module instead.
kube_src() {
  local src="$TOOLS/src/kubernetes-$K8S_VERSION" staging=v0.${K8S_VERSION#v1.}
  if [ ! -f "$src/go.mod" ]; then
    log "fetching k8s.io/kubernetes@$K8S_VERSION source"
    local mod
    mod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
    rm -rf "$src"; mkdir -p "$(dirname "$src")"; cp -r "$mod" "$src"; chmod -R u+w "$src"
    rm -rf "$src/vendor" "$src/go.work" "$src/go.work.sum"   # a vendor/ dir would force -mod=vendor
    sed -i -E "s#^(\s*)k8s.io/([a-z0-9-]+) => ./staging/src/k8s.io/([a-z0-9-]+)\$#\1k8s.io/\2 => k8s.io/\2 $staging#" "$src/go.mod"
  fi
  echo "$src"
}

# kube_build CMD...: ./cmd/CMD of the kubernetes tree into a versioned dir, linked into $BIN
kube_build() {
  local dir="$TOOLS/kubernetes-$K8S_VERSION" minor=${K8S_VERSION#v1.} c src=""
  minor=${minor%%.*}
  # without the version ldflags the server reports v0.0.0 and charts' kubeVersion checks fail
  local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION"
  ldflags+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
  ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z"
  mkdir -p "$dir"
  for c in "$@"; do
    if [ ! -x "$dir/$c" ]; then
      [ -n "$src" ] || src=$(kube_src)
      log "building $c $K8S_VERSION (first run only, minutes)"
      (cd "$src" && go build -mod=mod -trimpath -ldflags "$ldflags" -o "$dir/$c.tmp" "./cmd/$c" && mv "$dir/$c.tmp" "$dir/$c")
    fi
    ln -sfn "$dir/$c" "$BIN/$c"
  done
}

kube_tools() { kube_build kube-apiserver kube-controller-manager; }

# ---- the local Kubernetes node (ci/local/cluster.sh)
node_apt() {
  local p missing=()
  # busybox-static: the test pods' image; gcc + libc6-dev: the static pause binary
  for p in containerd runc containernetworking-plugins iptables conntrack busybox-static kmod gcc libc6-dev; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  log "apt-get install ${missing[*]}"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  $sudo service containerd stop >/dev/null 2>&1 || true   # ci/local/cluster.sh runs its own, with its own config
}

# go_main NAME VERSION SRC_DIR REQUIRE...: a small main package of this repo, built against pinned modules;
# rebuilt when its source changes (the dir name carries a hash of it)
go_main() {
  local name=$1 version=$2 srcdir=$3 sum; shift 3
  sum=$(cat "$srcdir"/*.go | sha256sum | cut -c1-8)
  local dir="$TOOLS/$name-$version-$sum"
  if [ ! -x "$dir/$name" ]; then
    log "building $name $version (first run only)"
    rm -rf "$dir/src"; mkdir -p "$dir/src"; cp "$srcdir"/*.go "$dir/src/"
    { printf 'module newsfeed.local/%s\n\ngo 1.24\n\nrequire (\n' "$name"; printf '\t%s\n' "$@"; printf ')\n'; } > "$dir/src/go.mod"
    (cd "$dir/src" && go mod tidy && go build -trimpath -ldflags '-s -w' -o "../$name.tmp" . && mv "../$name.tmp" "../$name")
  fi
  ln -sfn "$dir/$name" "$BIN/$name"
}

# The node's images: hand-made OCI archives (ci/local/cluster/oci-image.py), imported by ci/local/cluster.sh up.
# images.env tells ci/local/cluster.sh their names, so the versions live only here.
node_images() {
  local dir=$CACHE/node-images here pause_tag=$1 busybox_tag w
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  busybox_tag=$(dpkg-query -W -f '${Version}' busybox-static | sed -E 's/^[0-9]+://; s/[-+~].*//')
  mkdir -p "$dir"
  w=$(mktemp -d "$dir/.rootfs.XXXXXX")
  local pause=localhost/pause:$pause_tag busybox=localhost/busybox:$busybox_tag
  local coredns=localhost/coredns:${COREDNS_VERSION#v} metrics=localhost/metrics-server:${METRICS_SERVER_VERSION#v}
  local local_path=localhost/local-path-provisioner:${LOCAL_PATH_PROVISIONER_VERSION#v}
  # image REF ROOTFS_SETUP OCI_IMAGE_OPTIONS...: builds the archive once per REF
  image() {
    local ref=$1 setup=$2 tar; shift 2
    tar=$dir/$(echo "${ref#localhost/}" | tr ':/' '__').tar
    if [ ! -f "$tar" ]; then
      rm -rf "$w/root"; mkdir -p "$w/root/tmp"; chmod 1777 "$w/root/tmp"
      $setup "$w/root"
      python3 "$here/cluster/oci-image.py" "$ref" "$w/root" "$tar" "$@" >/dev/null
    fi
  }
  pause_root() { cp "$BIN/pause" "$1/pause"; }
  busybox_root() {   # applet links + passwd/group so `id` and runAsUser 65534 make sense
    local a; mkdir -p "$1/bin" "$1/etc" "$1/root" "$1/home"
    cp /bin/busybox "$1/bin/busybox"
    for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -s busybox "$1/bin/$a"; done
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/sh\n' > "$1/etc/passwd"
    printf 'root:x:0:\nnobody:x:65534:\n' > "$1/etc/group"
  }
  coredns_root() { cp "$BIN/coredns" "$1/coredns"; }
  metrics_root() { cp "$BIN/metrics-server" "$1/metrics-server"; }
  local_path_root() { mkdir -p "$1/usr/bin"; cp "$BIN/local-path-provisioner" "$1/usr/bin/local-path-provisioner"; }
  image "$pause" pause_root --entrypoint '["/pause"]' --user 65535:65535
  image "$busybox" busybox_root --cmd '["sh"]'
  image "$coredns" coredns_root --entrypoint '["/coredns"]' --user 65534:65534
  image "$metrics" metrics_root --entrypoint '["/metrics-server"]' --user 65534:65534
  image "$local_path" local_path_root --entrypoint '["/usr/bin/local-path-provisioner"]' --env PATH=/usr/bin
  rm -rf "$w"
  cat > "$dir/images.env.tmp" <<EOF
PAUSE_IMAGE=$pause
BUSYBOX_IMAGE=$busybox
COREDNS_IMAGE=$coredns
METRICS_SERVER_IMAGE=$metrics
LOCAL_PATH_PROVISIONER_IMAGE=$local_path
EOF
  mv "$dir/images.env.tmp" "$dir/images.env"
}

node_tools() {
  local here src pause_tag
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  node_apt
  kube_build kubelet kube-scheduler kube-proxy kubectl
  go_main coredns "$COREDNS_VERSION" "$here/cluster/coredns" "github.com/coredns/coredns $COREDNS_VERSION"
  go_main cri "$K8S_VERSION" "$here/cluster/cri" "k8s.io/cri-api v0.${K8S_VERSION#v1.}"
  go_tool metrics-server sigs.k8s.io/metrics-server/cmd/metrics-server "$METRICS_SERVER_VERSION"
  go_tool local-path-provisioner github.com/rancher/local-path-provisioner "$LOCAL_PATH_PROVISIONER_VERSION"
  # the pod sandbox process: static C from the kubernetes tree (it only waits for signals and reaps)
  src=$(kube_src)
  pause_tag=$(sed -n 's/^TAG ?= *//p' "$src/build/pause/Makefile")
  local pause_dir="$TOOLS/pause-$pause_tag"
  if [ ! -x "$pause_dir/pause" ]; then
    mkdir -p "$pause_dir"
    gcc -Os -static -DVERSION="$pause_tag" -o "$pause_dir/pause.tmp" "$src/build/pause/linux/pause.c"
    strip "$pause_dir/pause.tmp" && mv "$pause_dir/pause.tmp" "$pause_dir/pause"
  fi
  ln -sfn "$pause_dir/pause" "$BIN/pause"
  node_images "$pause_tag"
}

# ---- the Prometheus Operator in the local node (ci/local/cluster/monitoring.sh); target `prometheus-operator`
PROMETHEUS_OPERATOR_VERSION=v0.85.0
# The module's source, once: its go.mod replaces pkg/apis/monitoring and pkg/client with nested dirs that
# the module zip leaves out (they are modules of their own), so the replaces go and the published
# v0.85.0 of both (already required) are used instead; `go install pkg@version` refuses replaces anyway.
prometheus_operator_src() {
  local src="$TOOLS/src/prometheus-operator-$PROMETHEUS_OPERATOR_VERSION" mod
  if [ ! -f "$src/go.mod" ]; then
    mod=$(go mod download -json "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
    rm -rf "$src"; mkdir -p "$(dirname "$src")"; cp -r "$mod" "$src.tmp"; chmod -R u+w "$src.tmp"
    (cd "$src.tmp" && go mod edit -dropreplace github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring \
      -dropreplace github.com/prometheus-operator/prometheus-operator/pkg/client)
    mv "$src.tmp" "$src"
  fi
  echo "$src"
}

# Into ~/.cache/newsfeed/monitoring: the CRDs of the release (example/prometheus-operator-crd, as its
# bundle.yaml), three OCI archives (the operator, its config reloader and the Prometheus of `go`, tagged with
# its release: module v0.316.0 = 3.16.0) and images.env naming them.
prometheus_operator_tools() {
  local v=$PROMETHEUS_OPERATOR_VERSION dir="$TOOLS/prometheus-operator-$PROMETHEUS_OPERATOR_VERSION" c src=""
  local pkg=github.com/prometheus/common/version here images=$CACHE/monitoring
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  mkdir -p "$dir" "$images"
  for c in operator prometheus-config-reloader; do
    if [ ! -x "$dir/$c" ]; then
      [ -n "$src" ] || src=$(prometheus_operator_src)
      log "building $c $v (first run only, minutes)"
      (cd "$src" && go build -mod=mod -trimpath -o "$dir/$c.tmp" \
        -ldflags "-s -w -X $pkg.Version=${v#v} -X $pkg.Revision=$v -X $pkg.Branch=$v" "./cmd/$c" &&
        mv "$dir/$c.tmp" "$dir/$c")
    fi
    ln -sfn "$dir/$c" "$BIN/$c"
  done
  local prom="$TOOLS/prometheus-$PROMETHEUS_VERSION/prometheus" prom_release
  [ -x "$prom" ] || go_tools
  prom_release=$(go mod download -json "github.com/prometheus/prometheus@$PROMETHEUS_VERSION" |
    python3 -c 'import json,sys; print(open(json.load(sys.stdin)["Dir"] + "/VERSION").read().strip())')
  local operator=localhost/prometheus-operator:${v#v} reloader=localhost/prometheus-config-reloader:${v#v}
  local prometheus=localhost/prometheus:$prom_release
  # mon_image REF BINARY: /bin/NAME, a passwd naming nobody, entrypoint the binary, user nobody
  mon_image() {
    local ref=$1 bin=$2 tar w
    tar=$images/$(echo "${ref#localhost/}" | tr ':/' '__').tar
    [ -f "$tar" ] && return 0
    w=$(mktemp -d "$images/.rootfs.XXXXXX")
    mkdir -p "$w/bin" "$w/etc" "$w/tmp"; chmod 1777 "$w/tmp"
    cp "$bin" "$w/bin/$(basename "$bin")"
    printf 'root:x:0:0:root:/:/sbin/nologin\nnobody:x:65534:65534:nobody:/:/sbin/nologin\n' > "$w/etc/passwd"
    printf 'root:x:0:\nnobody:x:65534:\n' > "$w/etc/group"
    python3 "$here/cluster/oci-image.py" "$ref" "$w" "$tar.tmp" --user 65534:65534 \
      --entrypoint "[\"/bin/$(basename "$bin")\"]" >/dev/null
    mv "$tar.tmp" "$tar"; rm -rf "$w"
  }
  mon_image "$operator" "$dir/operator"
  mon_image "$reloader" "$dir/prometheus-config-reloader"
  mon_image "$prometheus" "$prom"
  local crds; crds=$(prometheus_operator_src)/example/prometheus-operator-crd
  if [ ! -s "$images/crds.yaml" ]; then
    for c in "$crds"/*.yaml; do printf -- '---\n'; cat "$c"; done > "$images/crds.yaml.tmp"
    mv "$images/crds.yaml.tmp" "$images/crds.yaml"
  fi
  printf 'PROMETHEUS_OPERATOR_IMAGE=%s\nPROMETHEUS_CONFIG_RELOADER_IMAGE=%s\nPROMETHEUS_IMAGE=%s\nPROMETHEUS_RELEASE=v%s\n' \
    "$operator" "$reloader" "$prometheus" "$prom_release" > "$images/images.env.tmp"
  mv "$images/images.env.tmp" "$images/images.env"
}

# ---- the ingress controller of the local node (ci/local/cluster/ingress.sh); target `ingress`
TRAEFIK_VERSION=v3.7.9
# Traefik from its module source (`go install` refuses its replaces): the zip leaves out the nested module
# github.com/traefik/traefik/dynamic/ext (./pkg/config/dynamic/ext), upstream only two empty extension structs,
# so they are written back; webui/static has no built assets in the zip, so the dashboard stays empty (off here).
# Into ~/.cache/newsfeed/ingress: the static binary's OCI archive (user 65532) and images.env naming it.
ingress_tools() {
  local v=$TRAEFIK_VERSION dir="$TOOLS/traefik-$TRAEFIK_VERSION" src="$TOOLS/src/traefik-$TRAEFIK_VERSION" mod
  local here images=$CACHE/ingress pkg=github.com/traefik/traefik/v3/pkg/version
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  if [ ! -x "$dir/traefik" ]; then
    if [ ! -f "$src/go.mod" ]; then
      mod=$(go mod download -json "github.com/traefik/traefik/v3@$v" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
      rm -rf "$src" "$src.tmp"; mkdir -p "$(dirname "$src")"; cp -r "$mod" "$src.tmp"; chmod -R u+w "$src.tmp"
      mkdir -p "$src.tmp/pkg/config/dynamic/ext"
      printf 'module github.com/traefik/traefik/dynamic/ext\n\ngo 1.24.0\n' > "$src.tmp/pkg/config/dynamic/ext/go.mod"
      printf 'package ext\n\ntype HTTP struct{}\n\ntype Router struct{}\n' > "$src.tmp/pkg/config/dynamic/ext/ext.go"
      mv "$src.tmp" "$src"
    fi
    log "building traefik $v (first run only, minutes)"
    mkdir -p "$dir"
    (cd "$src" && go build -mod=mod -trimpath -o "$dir/traefik.tmp" \
      -ldflags "-s -w -X $pkg.Version=$v -X $pkg.BuildDate=1970-01-01T00:00:00Z" ./cmd/traefik &&
      mv "$dir/traefik.tmp" "$dir/traefik")
  fi
  ln -sfn "$dir/traefik" "$BIN/traefik"
  local ref=localhost/traefik:${v#v} tar w
  mkdir -p "$images"; tar=$images/traefik_${v#v}.tar
  if [ ! -f "$tar" ]; then
    w=$(mktemp -d "$images/.rootfs.XXXXXX")
    mkdir -p "$w/bin" "$w/etc" "$w/tmp"; chmod 1777 "$w/tmp"
    cp "$dir/traefik" "$w/bin/traefik"
    printf 'root:x:0:0:root:/:/sbin/nologin\ntraefik:x:65532:65532:traefik:/:/sbin/nologin\n' > "$w/etc/passwd"
    printf 'root:x:0:\ntraefik:x:65532:\n' > "$w/etc/group"
    python3 "$here/cluster/oci-image.py" "$ref" "$w" "$tar.tmp" --user 65532:65532 --entrypoint '["/bin/traefik"]' \
      --expose 8000/tcp --label "org.opencontainers.image.description=Traefik $v" >/dev/null
    mv "$tar.tmp" "$tar"; rm -rf "$w"
  fi
  printf 'TRAEFIK_IMAGE=%s\nTRAEFIK_VERSION=%s\n' "$ref" "$v" > "$images/images.env.tmp"
  mv "$images/images.env.tmp" "$images/images.env"
}

# ---- CloudNativePG in the local node (ci/local/cluster/cnpg.sh); target `cnpg`
# v1.30.0: the module proxy here refuses v1.30.1's github.com/cloudnative-pg/machinery v0.6.0, so the newest
# release whose every dependency downloads. Into ~/.cache/newsfeed/cnpg: the operator image (its one static
# binary, /manager as upstream; the same binary is the instance manager its bootstrap init container copies into
# every PostgreSQL pod), the release manifest of the module (releases/cnpg-VERSION.yaml) and images.env.
CNPG_VERSION=v1.30.0
cnpg_tools() {
  local v=$CNPG_VERSION dir="$TOOLS/cnpg-$CNPG_VERSION" here images=$CACHE/cnpg mod pkg
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  pkg=github.com/cloudnative-pg/cloudnative-pg/pkg/versions
  mkdir -p "$images"
  mod=$(go mod download -json "github.com/cloudnative-pg/cloudnative-pg@$v" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  if [ ! -x "$dir/manager" ]; then
    # built in a copy of the module (`go install pkg@version` also asks the proxy for the version list, refused here)
    log "building the CloudNativePG manager $v (first run only, a minute or two)"
    rm -rf "$dir/src"; mkdir -p "$dir"; cp -r "$mod" "$dir/src"; chmod -R u+w "$dir/src"
    (cd "$dir/src" && go build -mod=mod -trimpath -o "$dir/manager.tmp" \
      -ldflags "-s -w -X $pkg.buildVersion=${v#v} -X $pkg.buildCommit=$v" ./cmd/manager && mv "$dir/manager.tmp" "$dir/manager")
    rm -rf "$dir/src"
  fi
  [ -s "$images/cnpg-${v#v}.yaml" ] || install -m 0644 "$mod/releases/cnpg-${v#v}.yaml" "$images/cnpg-${v#v}.yaml"
  local ref=localhost/cloudnative-pg:${v#v} tar w
  tar=$images/cloudnative-pg_${v#v}.tar
  if [ ! -f "$tar" ]; then
    w=$(mktemp -d "$images/.rootfs.XXXXXX")
    mkdir -p "$w/etc" "$w/tmp"; chmod 1777 "$w/tmp"
    # the upstream layout: the operator hashes operator/manager_<arch> (relative to /) for its pods' instance
    # manager, /manager links to it
    mkdir -p "$w/operator"; cp "$dir/manager" "$w/operator/manager_$(go env GOARCH)"
    ln -s "operator/manager_$(go env GOARCH)" "$w/manager"
    printf 'root:x:0:0:root:/:/sbin/nologin\nnonroot:x:10001:10001:nonroot:/:/sbin/nologin\n' > "$w/etc/passwd"
    printf 'root:x:0:\nnonroot:x:10001:\n' > "$w/etc/group"
    python3 "$here/cluster/oci-image.py" "$ref" "$w" "$tar.tmp" --user 10001:10001 --entrypoint '["/manager"]' --workdir / \
      --label "org.opencontainers.image.description=CloudNativePG $v" >/dev/null
    mv "$tar.tmp" "$tar"; rm -rf "$w"
  fi
  printf 'CNPG_OPERATOR_IMAGE=%s\nCNPG_VERSION=%s\nCNPG_MANIFEST=%s\n' "$ref" "$v" "$images/cnpg-${v#v}.yaml" > "$images/images.env.tmp"
  mv "$images/images.env.tmp" "$images/images.env"
}

targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(all)
for t in "${targets[@]}"; do
  case "$t" in
    all) apt_packages; go_tools; exporter_tools; npm_tools; kube_tools ;;
    apt) apt_packages ;;
    go) go_tools ;;
    exporters) exporter_tools ;;
    npm) npm_tools ;;
    kube) kube_tools ;;
    prometheus-operator) prometheus_operator_tools ;;
    ingress) ingress_tools ;;
    node) node_tools ;;
    cnpg) cnpg_tools ;;
    jaeger) jaeger_tool ;;
    *) echo "unknown target: $t" >&2; exit 2 ;;
  esac
done
echo "$BIN"
