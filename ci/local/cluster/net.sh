# The node's network outside the pods (sourced by ci/local/cluster.sh after lib.sh): the node IP, routes that keep
# every cluster address on this machine, the sysctls pods need, and the firewall chains that make
# "pods reach only the node, pods and services; nothing else reaches pods or the node IP" true.
# net_down removes all of it plus what kubelet and kube-proxy leave in iptables.
# shellcheck shell=bash

TABLES=(filter nat mangle)

net_up() {
  # an empty bridge holds the node IP (no CONFIG_DUMMY here): local traffic to it works, the rest of
  # its /24 has no neighbour and is dropped
  ip link show "$NODE_IF" >/dev/null 2>&1 || ip link add "$NODE_IF" type bridge
  ip link set "$NODE_IF" up
  ip addr replace "$NODE_IP/24" dev "$NODE_IF"
  # a ClusterIP nobody DNATs, or a pod IP before the pod bridge exists, must die here, not follow the
  # default route off the machine
  ip route replace "$SERVICE_CIDR" dev "$NODE_IF"
  ip route replace "$CLUSTER_CIDR" dev "$NODE_IF"
  # service traffic between pods is routed (DNAT on the bridge needs br_netfilter + forwarding);
  # the machine's values are put back by net_down
  modprobe br_netfilter 2>/dev/null || true
  local s
  for s in net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables; do
    [ -f "$RUN/sysctl.$s" ] || sysctl -n "$s" > "$RUN/sysctl.$s"
    sysctl -qw "$s=1"
  done

  # pods may send only to pods (and, through INPUT, to this node); nothing is forwarded to pods from
  # elsewhere. In mangle/FORWARD: it runs before filter/FORWARD, where kube-proxy puts its ACCEPTs.
  iptables -t mangle -N NEWSFEED-FORWARD 2>/dev/null || iptables -t mangle -F NEWSFEED-FORWARD
  iptables -t mangle -A NEWSFEED-FORWARD -i "$POD_IF" ! -o "$POD_IF" -j DROP
  iptables -t mangle -A NEWSFEED-FORWARD ! -i "$POD_IF" -o "$POD_IF" -j DROP
  iptables -t mangle -A NEWSFEED-FORWARD -s "$CLUSTER_CIDR" ! -o "$POD_IF" -j DROP
  iptables -t mangle -C FORWARD -j NEWSFEED-FORWARD 2>/dev/null || iptables -t mangle -I FORWARD 1 -j NEWSFEED-FORWARD
  # the node IP (where host processes such as the local stores listen for pods) and the apiserver (bound
  # to 0.0.0.0 so both 127.0.0.1 and pods reach it) answer only this machine and its pods
  iptables -N NEWSFEED-INPUT 2>/dev/null || iptables -F NEWSFEED-INPUT
  iptables -A NEWSFEED-INPUT -i lo -j RETURN
  iptables -A NEWSFEED-INPUT -i "$POD_IF" -j RETURN
  iptables -A NEWSFEED-INPUT -d "$NODE_NET" -j DROP
  iptables -A NEWSFEED-INPUT -p tcp --dport "$API_PORT" -j DROP
  iptables -C INPUT -j NEWSFEED-INPUT 2>/dev/null || iptables -I INPUT 1 -j NEWSFEED-INPUT
}

# iptables_leftovers: our chains and those kubelet, kube-proxy (KUBE-*) and the portmap plugin (CNI-*) make,
# as `TABLE RULE` lines
iptables_leftovers() {
  local t
  for t in "${TABLES[@]}"; do
    iptables -t "$t" -S 2>/dev/null | grep -E -- '(^-N |-j )(NEWSFEED|KUBE|CNI)-' | sed "s/^/$t /" || true
  done
}

net_down() {
  local t rule chain s args
  # jumps from the built-in chains first, then flush every chain, then delete them
  for t in "${TABLES[@]}"; do
    while read -r rule; do
      [ -n "$rule" ] || continue
      read -ra args <<< "${rule/#-A /-D }"
      iptables -t "$t" "${args[@]}" 2>/dev/null || true
    done < <(iptables -t "$t" -S 2>/dev/null | grep -E -- '^-A (INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) .*-j (NEWSFEED|KUBE|CNI)-' || true)
    while read -r chain; do iptables -t "$t" -F "$chain" 2>/dev/null || true; done \
      < <(iptables -t "$t" -S 2>/dev/null | sed -n -E 's/^-N ((NEWSFEED|KUBE|CNI)-[^ ]+)$/\1/p')
    while read -r chain; do iptables -t "$t" -X "$chain" 2>/dev/null || true; done \
      < <(iptables -t "$t" -S 2>/dev/null | sed -n -E 's/^-N ((NEWSFEED|KUBE|CNI)-[^ ]+)$/\1/p')
  done
  ip link show "$POD_IF" >/dev/null 2>&1 && ip link del "$POD_IF"
  ip link show "$NODE_IF" >/dev/null 2>&1 && ip link del "$NODE_IF"   # its address and routes go with it
  for s in net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables; do
    if [ -f "$RUN/sysctl.$s" ]; then sysctl -qw "$s=$(cat "$RUN/sysctl.$s")" && rm -f "$RUN/sysctl.$s"; fi
  done
  return 0
}
