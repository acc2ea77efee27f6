# The node's Kubernetes processes besides the control plane (sourced by ci/local/cluster.sh after lib.sh):
# kube-scheduler, kubelet and kube-proxy (iptables mode), each with its config under the run dir.
# shellcheck shell=bash

scheduler_up() {
  running kube-scheduler && return 0
  spawn kube-scheduler "$BIN/kube-scheduler" --kubeconfig="$KUBECONFIG_FILE" \
    --authentication-kubeconfig="$KUBECONFIG_FILE" --authorization-kubeconfig="$KUBECONFIG_FILE" \
    --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT" --leader-elect=false
  wait_for "kube-scheduler" curl -sfk "https://127.0.0.1:$SCHEDULER_PORT/healthz" ||
    { tail -n 20 "$RUN/kube-scheduler.log" >&2; return 1; }
}

kubelet_up() {
  running kubelet && return 0
  mkdir -p "$RUN/kubelet" "$RUN/pod-logs"
  # pods with dnsPolicy Default get this instead of the machine's resolv.conf, whose upstream they must not use
  echo "nameserver $DNS_IP" > "$RUN/resolv.conf"
  # cgroupfs on both sides (no systemd here); failCgroupV1 false: the machine may run cgroup v1
  cat > "$RUN/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: unix://$SOCK
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
address: $NODE_IP
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $RUN/certs/ca.crt}
authorization: {mode: Webhook}
clusterDNS: [$DNS_IP]
clusterDomain: cluster.local
resolvConf: $RUN/resolv.conf
podLogsDir: $RUN/pod-logs
serializeImagePulls: false
evictionHard: {memory.available: 200Mi, nodefs.available: 2%, imagefs.available: 2%, nodefs.inodesFree: 2%}
imageGCHighThresholdPercent: 98
imageGCLowThresholdPercent: 95
# a changed Secret or ConfigMap reaches a pod's volume at the pod's next sync: 10 s instead of the default minute, so
# Prometheus' config reloader sees new rules, and the first new scrape config after it started, within seconds
syncFrequency: 10s
YAML
  spawn kubelet "$BIN/kubelet" --config="$RUN/kubelet.yaml" --kubeconfig="$KUBECONFIG_FILE" \
    --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --root-dir="$RUN/kubelet" --cert-dir="$RUN/kubelet/pki"
  wait_for "kubelet healthz" curl -sf "http://127.0.0.1:$KUBELET_HEALTHZ_PORT/healthz" ||
    { tail -n 30 "$RUN/kubelet.log" >&2; return 1; }
}

kube_proxy_up() {
  running kube-proxy && return 0
  # conntrack maxPerCore 0: leave the machine's conntrack table size alone
  cat > "$RUN/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $KUBECONFIG_FILE}
hostnameOverride: $NODE_NAME
mode: iptables
clusterCIDR: $CLUSTER_CIDR
healthzBindAddress: 127.0.0.1:$PROXY_HEALTHZ_PORT
metricsBindAddress: 127.0.0.1:$PROXY_METRICS_PORT
nodePortAddresses: ["$NODE_IP/32"]
conntrack: {maxPerCore: 0}
YAML
  spawn kube-proxy "$BIN/kube-proxy" --config="$RUN/kube-proxy.yaml"
  wait_for "kube-proxy healthz" curl -sf "http://127.0.0.1:$PROXY_HEALTHZ_PORT/healthz" ||
    { tail -n 30 "$RUN/kube-proxy.log" >&2; return 1; }
}
