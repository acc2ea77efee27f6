#!/usr/bin/env bash
# A real single-node Kubernetes on this machine, real containers, no registry: ci/local/control-plane.sh's etcd +
# kube-apiserver + kube-controller-manager, plus containerd + runc + a CNI bridge, kube-scheduler, kubelet,
# kube-proxy (iptables), CoreDNS and metrics-server. Images are OCI archives (ci/local/cluster/oci-image.py)
# named localhost/NAME:TAG and imported into containerd's k8s.io namespace.
#
# Usage: ci/local/cluster.sh up|down|status|env | kubectl ARGS... | import TAR... | cri pods|ps|images
#   up      idempotent ("already running"); a half-running node is stopped and started whole
#   down    stops what the run dir recorded and removes every pod (CNI DEL), mount, bridge, route, sysctl
#           and iptables chain of the node; a second down has nothing to stop
#   env     prints `export KUBECONFIG=...` and the addresses below (eval "$(ci/local/cluster.sh env)")
#   import  OCI archives into the running node (e.g. images built with ci/local/cluster/oci-image.py)
# Needs root and `bash ci/local/tools.sh node` (Debian's containerd, runc, CNI plugins, iptables, conntrack; the
# pinned Kubernetes binaries, CoreDNS, metrics-server and their images). Run dir ${NEWSFEED_RUN:-<repo>/.run}/cluster;
# the ports of ci/local/control-plane.sh and the node's own ones are shifted by NEWSFEED_PORT_OFFSET.
#
# Addresses (one node per machine; all of them stay on it, see ci/local/cluster/README.md):
#   NODE_IP 10.245.0.1    on the empty bridge nfnode0: the kubelet's node IP and the apiserver's advertised
#                         address. Host processes listening on it are reachable from pods (and this machine),
#                         never from another interface: how pods reach the local stores (selector-less Services).
#   pods    10.244.0.0/24 on the bridge nfpods0 (gateway 10.244.0.1)
#   services 10.96.0.0/16: kubernetes 10.96.0.1, cluster DNS (kube-dns) 10.96.0.10, zone cluster.local
#   apiserver https://127.0.0.1:16443 (+ offset) for kubectl; pods use the kubernetes Service
set -euo pipefail

# shellcheck source=ci/local/cluster/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/cluster/lib.sh"
# shellcheck source=ci/local/cluster/net.sh
. "$CLUSTER_SRC/net.sh"
# shellcheck source=ci/local/cluster/certs.sh
. "$CLUSTER_SRC/certs.sh"
# shellcheck source=ci/local/cluster/containerd.sh
. "$CLUSTER_SRC/containerd.sh"
# shellcheck source=ci/local/cluster/components.sh
. "$CLUSTER_SRC/components.sh"

NODE_COMPONENTS=(containerd kube-scheduler kubelet kube-proxy)
BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl etcd cri)

need_root() { [ "$(id -u)" = 0 ] || die "run as root: containers, bridges and iptables need it"; }
control_plane() { NEWSFEED_RUN=$RUN bash "$REPO_ROOT/ci/local/control-plane.sh" "$@" 9>&-; }

load_images_env() {
  [ -f "$IMAGES_DIR/images.env" ] || die "$IMAGES_DIR/images.env missing: run bash ci/local/tools.sh node"
  # shellcheck source=/dev/null
  . "$IMAGES_DIR/images.env"
}

all_running() {
  local c
  for c in "${NODE_COMPONENTS[@]}"; do running "$c" || return 1; done
  control_plane status >/dev/null 2>&1
}

# Ready=True *and* a heartbeat from this kubelet run: etcd keeps the last run's Node status
node_ready() {
  local s; s=$(kc get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].lastHeartbeatTime}')
  [ "${s%% *}" = True ] && ! [[ "${s#* }" < "$1" ]]
}
# a real lookup through the kube-dns ClusterIP: kube-proxy's DNAT, the CoreDNS pod, the apiserver behind it
dns_ok() { timeout 3 busybox nslookup kubernetes.default.svc.cluster.local "$DNS_IP" 2>/dev/null | grep "Address: *$API_SERVICE_IP" > /dev/null; }

addons_up() {
  local f
  mkdir -p "$VOLUMES_DIR"
  for f in coredns metrics-server local-path; do
    sed -e "s|@COREDNS_IMAGE@|$COREDNS_IMAGE|g" -e "s|@METRICS_SERVER_IMAGE@|$METRICS_SERVER_IMAGE|g" \
        -e "s|@LOCAL_PATH_PROVISIONER_IMAGE@|$LOCAL_PATH_PROVISIONER_IMAGE|g" -e "s|@BUSYBOX_IMAGE@|$BUSYBOX_IMAGE|g" \
        -e "s|@VOLUMES_DIR@|$VOLUMES_DIR|g" -e "s|@DNS_IP@|$DNS_IP|g" "$CLUSTER_SRC/addons/$f.yaml" | kc apply -f - >/dev/null
  done
}

up() {
  need_root
  local b t0=$SECONDS since
  for b in "${BINARIES[@]}"; do [ -x "$BIN/$b" ] || die "$BIN/$b missing: run bash ci/local/tools.sh all node"; done
  load_images_env
  if all_running; then log "already running; $(env_lines | head -n 1)"; return 0; fi
  # a half-running node of this run dir is restarted whole; another run dir's node is left alone
  if [ -n "$(leftovers)" ]; then down_all; fi
  if ip link show "$NODE_IF" >/dev/null 2>&1; then
    die "$NODE_IF exists but not from this run dir ($RUN): another run dir's node is up? (its ci/local/cluster.sh down)"
  fi
  mkdir -p "$RUN"; chmod 700 "$RUN"
  log "network: node IP $NODE_IP on $NODE_IF, pods $POD_CIDR on $POD_IF, services $SERVICE_CIDR"
  net_up
  certs_up
  containerd_up
  node_images_up
  log "containerd up, images imported ($((SECONDS - t0)) s)"
  NEWSFEED_APISERVER_ARGS="$(apiserver_args)" control_plane start
  scheduler_up
  since=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  kubelet_up
  wait_for "node $NODE_NAME Ready" node_ready "$since" || { tail -n 30 "$RUN/kubelet.log" >&2; return 1; }
  log "node Ready ($((SECONDS - t0)) s)"
  kube_proxy_up
  addons_up
  wait_for "cluster DNS answering on $DNS_IP" dns_ok || { kc -n kube-system get pods -o wide >&2; return 1; }
  log "up in $((SECONDS - t0)) s; $(env_lines | head -n 1)"
}

# net_owned: this run dir set up the node network (net_up saves the sysctls it changes; net_down restores them)
net_owned() { [ -f "$RUN/sysctl.net.ipv4.ip_forward" ]; }

# what this run dir's node left on the machine: recorded processes, mounts, and (when it made them) links
# and iptables chains. Empty when clean.
leftovers() {
  local c
  for c in "${NODE_COMPONENTS[@]}"; do running "$c" && echo "process $c"; done
  for c in etcd kube-apiserver kube-controller-manager; do RUN=$CP_RUN running "$c" && echo "process $c"; done
  findmnt -rn -o TARGET | grep -F "$RUN/" | sed 's/^/mount /' || true
  find "$RUN/cni/ipam" -name '10.*' 2>/dev/null | sed 's/^/IP lease /'
  if net_owned; then
    for c in "$NODE_IF" "$POD_IF"; do ip link show "$c" >/dev/null 2>&1 && echo "link $c"; done
    iptables_leftovers | sed 's/^/iptables /'
    echo "sysctls to restore"
  fi
}

down_all() {
  stop_component kube-proxy || true
  stop_component kubelet || true
  # every pod sandbox stopped and removed through containerd: the CNI DEL frees veths, netns and IP leases
  if running containerd; then "$BIN/cri" "$SOCK" rmp-all || log "some pod sandboxes were not removed"; fi
  stop_component kube-scheduler || true
  [ -d "$CP_RUN" ] && control_plane stop
  stop_component containerd || true
  # the kubelet's volume mounts (tmpfs for tokens and secrets) and any container rootfs left
  findmnt -rn -o TARGET | grep -F "$RUN/" | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "could not unmount $m"
  done
  if net_owned; then
    if [ -x "$BIN/kube-proxy" ]; then "$BIN/kube-proxy" --cleanup >/dev/null 2>&1 || true; fi
    net_down
    # the kubelet's pod cgroups, empty now (rmdir removes nothing else)
    find /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods -depth -type d -exec rmdir {} + 2>/dev/null || true
  fi
}

down() {
  need_root
  if [ -z "$(leftovers)" ]; then
    log "nothing to stop"
    if ip link show "$NODE_IF" >/dev/null 2>&1; then log "($NODE_IF exists: another run dir's node?)"; fi
    return 0
  fi
  local t0=$SECONDS left
  down_all
  left=$(leftovers)
  if [ -n "$left" ]; then log "left behind:"; echo "$left" >&2; return 1; fi
  log "down in $((SECONDS - t0)) s"
}

status() {
  local c pid rc=0
  for c in "${NODE_COMPONENTS[@]}"; do
    if pid=$(component_pid "$c"); then
      printf '%-24s running (pid %s, rss %s MiB)\n' "$c" "$pid" "$(( $(awk '/VmRSS/{print $2}' "/proc/$pid/status") / 1024 ))"
    else printf '%-24s not running\n' "$c"; rc=3; fi
  done
  control_plane status || rc=3
  if [ $rc = 0 ]; then kc get nodes -o wide; kc get pods -A -o wide; fi
  return $rc
}

env_lines() {
  echo "export KUBECONFIG=$KUBECONFIG_FILE"
  echo "export NODE_IP=$NODE_IP POD_CIDR=$POD_CIDR SERVICE_CIDR=$SERVICE_CIDR CLUSTER_DNS=$DNS_IP"
}

# one up or down at a time per run dir
lock() { mkdir -p "$NEWSFEED_RUN"; exec 9> "$NEWSFEED_RUN/.cluster.lock"; flock 9; }

case "${1:-}" in
  up) lock; up ;;
  down) lock; down ;;
  status) status ;;
  env) env_lines ;;
  kubectl) shift; kc "$@" ;;
  import) shift; [ $# -gt 0 ] || die "usage: $0 import TAR..."; running containerd || die "the node is not up"
          import_images "$@"; log "imported $*" ;;
  cri) shift; "$BIN/cri" "$SOCK" "$@" ;;
  *) echo "usage: $0 up|down|status|env | kubectl ARGS... | import TAR... | cri pods|ps|images" >&2; exit 2 ;;
esac
