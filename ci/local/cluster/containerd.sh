# containerd for the node (sourced by ci/local/cluster.sh after lib.sh): Debian's containerd 1.6 + runc, its own
# config, socket, root and state under the run dir, the CNI bridge config, and the node's images imported.
# shellcheck shell=bash

containerd_config() {
  mkdir -p "$RUN/cni/net.d" "$RUN/cni/ipam" "$RUN/containerd" "$RUN/containerd-state"
  # the pods' network: one bridge, host-local leases under the run dir, no masquerade (nothing leaves)
  cat > "$RUN/cni/net.d/10-newsfeed.conflist" <<CNI
{
  "cniVersion": "1.0.0",
  "name": "newsfeed",
  "plugins": [
    {"type": "bridge", "bridge": "$POD_IF", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "dataDir": "$RUN/cni/ipam",
              "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$POD_GW"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}, "snat": true}
  ]
}
CNI
  cat > "$RUN/containerd.toml" <<TOML
version = 2
root = "$RUN/containerd"
state = "$RUN/containerd-state"
[grpc]
  address = "$SOCK"
[plugins."io.containerd.internal.v1.opt"]
  path = "$RUN/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # Without CAP_SYS_RESOURCE (withheld from root on some VMs) a negative oom_score_adj (-998 for every pod
  # sandbox) is refused and runc dies in nsexec ("can't get final child's PID from pipe: EOF"): clamp it
  # to containerd's own value instead.
  restrict_oom_score_adj = true
  enable_selinux = false
  # pods' network namespaces under the state dir, not /run/netns: attributable to this run dir, unmounted by down
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$RUN/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$RUN/cni/net.d"
TOML
}

ctr_() { ctr --address "$SOCK" -n k8s.io "$@"; }

containerd_up() {
  running containerd && return 0
  containerd_config
  spawn containerd containerd --config "$RUN/containerd.toml"
  wait_for "containerd on $SOCK" ctr_ version || { tail -n 20 "$RUN/containerd.log" >&2; return 1; }
}

# import_images TAR...: into namespace k8s.io, where the kubelet (CRI) looks for images
import_images() {
  local tar
  for tar in "$@"; do
    [ -f "$tar" ] || die "$tar: no such file"
    ctr_ images import "$tar" >/dev/null || die "import of $tar failed"
  done
}

# node_images_up: the archives ci/local/tools.sh node built, each imported once
node_images_up() {
  local have ref tar
  have=$(ctr_ images ls -q)
  for ref in "$PAUSE_IMAGE" "$BUSYBOX_IMAGE" "$COREDNS_IMAGE" "$METRICS_SERVER_IMAGE" "$LOCAL_PATH_PROVISIONER_IMAGE"; do
    grep -qxF "$ref" <<< "$have" && continue
    tar=$IMAGES_DIR/$(echo "${ref#localhost/}" | tr ':/' '__').tar
    import_images "$tar"
  done
}
