# Shared settings and helpers of the local Kubernetes node (sourced by ci/local/cluster.sh and ci/local/cluster/*.sh).
# Addresses, ports and paths live here so every part agrees on them; the addresses are documented in
# ci/local/cluster/README.md.
# shellcheck shell=bash disable=SC2034   # the settings below are read by the scripts that source this

CLUSTER_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$CLUSTER_SRC/../../.." && pwd)
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
BIN=${NEWSFEED_BIN:-$CACHE/bin}
IMAGES_DIR=$CACHE/node-images             # archives and images.env written by ci/local/tools.sh node
NEWSFEED_RUN=${NEWSFEED_RUN:-$REPO_ROOT/.run}
RUN=$NEWSFEED_RUN/cluster
CP_RUN=$RUN/control-plane                 # ci/local/control-plane.sh runs with NEWSFEED_RUN=$RUN
KUBECONFIG_FILE=$CP_RUN/kubeconfig
SOCK=$RUN/containerd.sock
VOLUMES_DIR=$RUN/volumes                  # PersistentVolumes of the local-path StorageClass (addons/local-path.yaml)
OFFSET=${NEWSFEED_PORT_OFFSET:-0}

# addresses: one node per machine (bridges, routes and the node IP are machine-wide)
NODE_NAME=newsfeed-node
NODE_IF=nfnode0                           # empty bridge holding the node IP (this kernel has no dummy links)
POD_IF=nfpods0                            # the CNI bridge every pod's veth joins
NODE_IP=10.245.0.1
NODE_NET=10.245.0.0/24
POD_CIDR=10.244.0.0/24
POD_GW=10.244.0.1
CLUSTER_CIDR=10.244.0.0/16
SERVICE_CIDR=10.96.0.0/16                 # ci/local/control-plane.sh's
API_SERVICE_IP=10.96.0.1
DNS_IP=10.96.0.10

# ports beside ci/local/control-plane.sh's (etcd 12379/12380, apiserver 16443, controller-manager 16257)
API_PORT=$((16443 + OFFSET))
KUBELET_PORT=$((16250 + OFFSET))          # on NODE_IP (logs, exec, metrics)
KUBELET_HEALTHZ_PORT=$((16248 + OFFSET))  # the rest on 127.0.0.1
SCHEDULER_PORT=$((16259 + OFFSET))
PROXY_HEALTHZ_PORT=$((16256 + OFFSET))
PROXY_METRICS_PORT=$((16249 + OFFSET))
READY_TIMEOUT=${NEWSFEED_CLUSTER_TIMEOUT:-180}

log() { echo "[cluster $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
kc() { "$BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" "$@"; }

# shellcheck source=ci/local/process.sh
source "$REPO_ROOT/ci/local/process.sh"   # pid files that survive recycled PIDs
pid_file() { echo "$RUN/$1.pid"; }
component_pid() { recorded_pid "$(pid_file "$1")"; }
running() { component_pid "$1" >/dev/null; }

# spawn NAME CMD...: detached, its log and pid file in $RUN (ci/local/process.sh)
spawn() { spawn_recorded "$RUN/$1.log" "$(pid_file "$1")" "${@:2}" || die "$1 exited at once"; }

# stop_component NAME: TERM, 10 s, KILL; only the process its pid file recorded
stop_component() {
  local pid
  if pid=$(component_pid "$1"); then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then log "$1 did not stop in 10s: SIGKILL"; kill -9 "$pid" 2>/dev/null || true; fi
    rm -f "$(pid_file "$1")"
    return 0
  fi
  rm -f "$(pid_file "$1")"
  return 1
}

# wait_for DESC CMD...: polls CMD for READY_TIMEOUT seconds
wait_for() {
  local desc=$1 deadline=$((SECONDS + READY_TIMEOUT)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { log "timed out after ${READY_TIMEOUT}s waiting for $desc"; return 1; }
    sleep 0.5
  done
}
