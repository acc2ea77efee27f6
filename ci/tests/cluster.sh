#!/usr/bin/env bash
# Suite "cluster": the real single-node Kubernetes of ci/local/cluster.sh, real containers.
#  node:     up; node Ready; CoreDNS answers (cluster.local only); cluster addresses routed to the node; a
#            Deployment + Service reached by DNS name from a Job; a host process on the node IP reached from a
#            pod, but neither it nor the apiserver from "outside" (a network namespace behind a veth);
#            kubectl create job --from=cronjob; a restricted pod (non-root, read-only root, drop ALL);
#            kubectl logs/exec; metrics API and kubectl top
#  teardown: down leaves no process, mount, link, netns, IP lease, route or iptables rule; up twice and down
#            twice are idempotent
#  chart:    ci/tests/cluster/chart.sh: `KEEP_RUNNING=1 make cluster-demo` (short) as the README has it — its node,
#            monitoring, ingress and the umbrella chart installed for real with values/local-node.yaml by
#            ci/local/cluster/install.sh (each of its steps a check), its report — then on that release monitoring.sh
#            (the demo's Prometheus Operator: the chart's ServiceMonitor in front of a stand-in with known rates, the
#            release's PrometheusRule, a k6 pod remote-writing, the per-minute report) and solr.sh (the chart's Solr
#            PodMonitor scraping a real Solr pod), both set up first and checked last, the k6
#            GraphQL Job, postgresql.sh, kafka-lag.sh (the chart's Kafka lag exporter scraped), ingress.sh (the API
#            through Traefik) and scaling.sh (ci/bench/experiment.sh --mode cluster, the HPA's autoscaling run, the
#            drain), the monitoring stack down, install.sh down, and the stop command the demo printed, which leaves the
#            machine as before
# Needs root and `bash ci/local/tools.sh node` (run here). Usage: ci/tests/cluster.sh (NEWSFEED_PORT_OFFSET defaults
# to 950; NEWSFEED_CLUSTER_KEEP=1 keeps the work dir with every check's log). One node per machine: do not run
# it while another ci/local/cluster.sh node is up.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
BIN=${NEWSFEED_BIN:-$CACHE/bin}
PATH=$BIN:$PATH
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-950}
SUITE_START=$SECONDS

WORK=$(mktemp -d /tmp/newsfeed-cluster-test.XXXXXX)
chmod 711 "$WORK"   # sections start stores as their own users (PostgreSQL as postgres): it must be traversable
export NEWSFEED_RUN=$WORK/run
RUN=$NEWSFEED_RUN/cluster
export KUBECONFIG=$RUN/control-plane/kubeconfig
NS=cluster-test
NODE=newsfeed-node
NODE_IP=10.245.0.1
passed=0 failed=0 started=false demo_up=false
DEMO_RUN=$WORK/demo-run
cleanup() {
  local rc=$? p
  for p in "${HOST_HTTPD:-}" "${OUT_HTTPD:-}"; do [ -z "$p" ] || kill "$p" 2>/dev/null || true; done
  outside_down
  if $started; then bash ci/local/cluster.sh down >/dev/null 2>&1 || true; fi
  # the release section's demo node, left running by KEEP_RUNNING=1 (chart.sh stops it unless a check stopped short)
  if $demo_up; then env NEWSFEED_RUN="$DEMO_RUN" make -s clean >/dev/null 2>&1 || true; fi
  if [ "$failed" -eq 0 ] && [ "$rc" -eq 0 ] && [ -z "${NEWSFEED_CLUSTER_KEEP:-}" ]; then rm -rf "$WORK"
  else echo "kept $WORK (logs)" >&2; fi
}
trap cleanup EXIT

# check NAME CMD...: one counted test; the command's output goes to a log shown (tail) only on failure;
# LAST tells the caller how it went
check() {
  local name=$1; shift
  local log; log=$WORK/logs/$(echo "$name" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-120).log
  mkdir -p "$WORK/logs"
  if "$@" > "$log" 2>&1; then
    passed=$((passed + 1)); echo "ok - $name"; LAST=ok
  else
    failed=$((failed + 1)); echo "FAIL - $name"; tail -n 25 "$log" | sed 's/^/    /'; LAST=fail
  fi
}
# kcheck NAME CMD...: a check on cluster objects; on failure the pods, events and logs of the test namespace
kcheck() { check "$@"; [ "$LAST" = ok ] || diagnose | sed 's/^/    /'; }
note() { echo "# $*"; }
fail_now() { failed=$((failed + 1)); echo "FAIL - $1"; }
finish() { note "suite took $((SECONDS - SUITE_START)) s"; echo "cluster: $passed passed, $failed failed"; }
kc() { kubectl --kubeconfig "$KUBECONFIG" "$@"; }
# cluster_prom PATH [PARAM]: GET /api/v1/PATH of the in-cluster Prometheus (ci/local/cluster/monitoring.sh), PARAM
# URL-encoded (e.g. "query=up"); for the sections that read what it scraped
cluster_prom() { curl -sfG -m 5 "$(bash ci/local/cluster/monitoring.sh url)/api/v1/$1" ${2:+--data-urlencode "$2"}; }
# cluster_target_up POOL [POD]: the in-cluster Prometheus has exactly one target of scrape pool POOL (e.g.
# "serviceMonitor/NS/NAME/0"), of pod POD if given, and it is up
cluster_target_up() {
  cluster_prom targets | jq -e --arg p "$1" --arg pod "${2:-}" '[.data.activeTargets[] |
    select(.scrapePool == $p and .health == "up" and ($pod == "" or .labels.pod == $pod))] | length == 1'
}
# node_image NAME: "REF ARCHIVE" of image NAME, built by ci/local/cluster/images.sh (cached), for cluster.sh import
node_image() { bash ci/local/cluster/images.sh build "$1" | awk 'END {print $1 " " $2}'; }
# cluster_panels TITLE_REGEX: the stores dashboard's panels whose titles match have data in the in-cluster Prometheus
cluster_panels() {
  python3 ci/tests/observability/check_panels_have_data.py --prometheus "$(bash ci/local/cluster/monitoring.sh url)" \
    --title "$1" --wait 60 charts/newsfeed/files/dashboards/newsfeed-stores.json
}
diagnose() {
  kc get pods -A -o wide 2>&1 | tail -n 20
  kc -n "$NS" get events --sort-by=.lastTimestamp 2>&1 | tail -n 15
  local p
  for p in $(kc -n "$NS" get pods -o name 2>/dev/null); do
    echo "--- logs $p"; kc -n "$NS" logs "$p" --all-containers --tail=10 2>&1
  done
}
# poll SECONDS CMD...: until CMD succeeds
poll() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do [ $SECONDS -lt $deadline ] || return 1; sleep 2; done
}

# "outside": a network namespace behind a veth, like a host on another interface (eth0) would be. It may reach
# the machine's own address on that link, but neither the node IP nor the apiserver's port.
OUT_IP=10.246.0.1 OUT_PORT=$((18091 + NEWSFEED_PORT_OFFSET)) OUT_PID=""
outside_up() {
  unshare --net sleep 600 &   # a network namespace that goes away with this process, nothing mounted
  OUT_PID=$!
  sleep 0.3
  ip link add nfout0 type veth peer name nfout1 netns "$OUT_PID"
  ip addr add "$OUT_IP/30" dev nfout0; ip link set nfout0 up
  nsenter -t "$OUT_PID" -n ip addr add 10.246.0.2/30 dev nfout1
  nsenter -t "$OUT_PID" -n ip link set nfout1 up
  nsenter -t "$OUT_PID" -n ip route add 10.245.0.0/24 via "$OUT_IP"
}
outside_down() { [ -z "$OUT_PID" ] || kill "$OUT_PID" 2>/dev/null || true; OUT_PID=""; ip link del nfout0 2>/dev/null || true; }
# from_outside HOST PORT: a TCP connection from the outside namespace
from_outside() { nsenter -t "$OUT_PID" -n timeout 3 bash -c "exec 3<>/dev/tcp/$1/$2"; }

# ---------------------------------------------------------------- prerequisites
if [ "$(id -u)" != 0 ]; then fail_now "running as root (containers, bridges and iptables need it)"; finish; exit 1; fi
if ! bash ci/local/tools.sh node > "$WORK/tools.log" 2>&1; then
  fail_now "bash ci/local/tools.sh node"; tail -n 20 "$WORK/tools.log"; finish; exit 1
fi
# shellcheck source=/dev/null
. "$CACHE/node-images/images.env"
if ip link show nfnode0 >/dev/null 2>&1; then
  fail_now "no other node up on this machine (nfnode0 exists: ci/local/cluster.sh down with its run dir)"; finish; exit 1
fi

# what the machine looks like without the node, to compare after down: every iptables rule; the links, network
# namespaces and routes the node could make (others may come and go on a shared machine)
machine_state() {
  local t
  for t in filter nat mangle; do echo "== iptables -t $t"; iptables -t "$t" -S; done
  echo "== links"; ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^(nfnode0|nfpods0|veth)' | sort || true
  echo "== routes"; ip route show | grep -E 'nfnode0|nfpods0|^10\.(96|244|245)\.' || true
  echo "== netns"; ip netns list 2>/dev/null | grep '^cni-' | sort || true
  echo "== sysctl"; sysctl -n net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables 2>/dev/null || true
}
machine_state > "$WORK/machine.before"

# ---------------------------------------------------------------- node
t=$SECONDS
started=true
check "ci/local/cluster.sh up" bash ci/local/cluster.sh up
if [ "$LAST" != ok ]; then
  tail -n 30 "$RUN"/kubelet.log 2>/dev/null | sed 's/^/    /'; finish; exit 1
fi
note "up took $((SECONDS - t)) s"
kcheck "node $NODE Ready" kc wait --for=condition=Ready "node/$NODE" --timeout=60s
check "CoreDNS answers kubernetes.default.svc.cluster.local on 10.96.0.10" \
  bash -c 'busybox nslookup kubernetes.default.svc.cluster.local 10.96.0.10 | grep "Address: *10.96.0.1$" > /dev/null'
check "names outside cluster.local are not forwarded anywhere" \
  bash -c '! timeout 5 busybox nslookup example.com 10.96.0.10'
routed_here() { local a; for a in "$@"; do ip route get "$a" | grep "dev nfnode0" > /dev/null || return 1; done; }
check "cluster addresses are routed to the node bridge, not off the machine" routed_here 10.96.200.1 10.244.9.9 10.245.0.9
env_ok() { bash ci/local/cluster.sh env > "$WORK/env"; grep -qx "export KUBECONFIG=$KUBECONFIG" "$WORK/env" && grep -q "NODE_IP=$NODE_IP" "$WORK/env"; }
check "ci/local/cluster.sh env prints KUBECONFIG and NODE_IP" env_ok

# a host process on the node IP, as the local stores are for pods
HOST_PORT=$((18090 + NEWSFEED_PORT_OFFSET))
mkdir -p "$WORK/www"; echo "hello from the host" > "$WORK/www/index.html"
busybox httpd -f -p "$NODE_IP:$HOST_PORT" -h "$WORK/www" &
HOST_HTTPD=$!

# the web pods run an image made here by ci/local/cluster/oci-image.py and loaded with ci/local/cluster.sh import
WEB_IMAGE=localhost/cluster-test-web:1
web_image() {
  local r=$WORK/web-rootfs
  mkdir -p "$r/bin" "$r/www" "$r/tmp"; chmod 1777 "$r/tmp"
  cp /bin/busybox "$r/bin/busybox"; ln -s busybox "$r/bin/sh"
  echo "hello from the web image" > "$r/www/index.html"
  python3 ci/local/cluster/oci-image.py "$WEB_IMAGE" "$r" "$WORK/web.tar" --user 65534:65534 --expose 8080 \
    --entrypoint '["/bin/busybox", "httpd", "-f", "-p", "8080", "-h", "/www"]' &&
    bash ci/local/cluster.sh import "$WORK/web.tar" &&
    bash ci/local/cluster.sh cri images | grep "$WEB_IMAGE" > /dev/null
}
check "an image from ci/local/cluster/oci-image.py imported with ci/local/cluster.sh import" web_image

kc create namespace "$NS" >/dev/null
kc -n "$NS" apply -f - > "$WORK/apply.log" 2>&1 <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
      containers:
      - name: httpd
        image: $WEB_IMAGE
        ports: [{containerPort: 8080}]
        readinessProbe: {httpGet: {path: /index.html, port: 8080}, periodSeconds: 2}
        resources: {requests: {cpu: 10m, memory: 8Mi}}
        securityContext: {readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: fetch}
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: fetch
        image: $BUSYBOX_IMAGE
        # busybox's wget -T crashes: timeout bounds it instead
        command: [sh, -c, 'until timeout 5 wget -qO- http://web.$NS.svc.cluster.local/index.html; do sleep 1; done;
                  timeout 5 wget -qO- http://$NODE_IP:$HOST_PORT/index.html']
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick}
spec:
  schedule: "0 0 1 1 *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: tick, image: $BUSYBOX_IMAGE, command: [sh, -c, 'echo tick from the cronjob']}]
---
apiVersion: v1
kind: Pod
metadata: {name: restricted}
spec:
  securityContext: {runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: c
    image: $BUSYBOX_IMAGE
    command: [sh, -c, 'id -u; touch /x 2>/dev/null && echo rootfs-writable || echo rootfs-read-only; grep CapEff /proc/self/status; sleep 3600']
    securityContext: {readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
EOF
kcheck "Deployment web rolled out (2 replicas)" kc -n "$NS" rollout status deploy/web --timeout=120s
kcheck "a Job reaches Service web by its DNS name" kc -n "$NS" wait --for=condition=complete job/fetch --timeout=120s
kcheck "the Job reached a host process listening on the node IP" \
  bash -c "kubectl --kubeconfig '$KUBECONFIG' -n $NS logs job/fetch | grep 'hello from the host' > /dev/null"
kc -n "$NS" create job tick-now --from=cronjob/tick >/dev/null 2>&1 || true
kcheck "kubectl create job --from=cronjob completes" kc -n "$NS" wait --for=condition=complete job/tick-now --timeout=90s
kcheck "restricted pod (non-root, read-only root, drop ALL) runs" kc -n "$NS" wait --for=condition=Ready pod/restricted --timeout=90s
kcheck "restricted pod: uid 65534, read-only root, no capabilities" bash -c \
  "poll() { for _ in 1 2 3 4 5 6 7 8 9 10; do kubectl --kubeconfig '$KUBECONFIG' -n $NS logs restricted | tr '\n' ' ' | grep -E '^65534 rootfs-read-only CapEff:\s+0+ ' > /dev/null && return 0; sleep 1; done; return 1; }; poll"
kcheck "kubectl exec" bash -c "kubectl --kubeconfig '$KUBECONFIG' -n $NS exec deploy/web -- /bin/busybox cat /www/index.html | grep 'web image' > /dev/null"
kcheck "metrics API available" kc wait --for=condition=Available apiservice/v1beta1.metrics.k8s.io --timeout=120s
t=$SECONDS
kcheck "kubectl top pod" poll 120 kc -n "$NS" top pod
note "kubectl top answered $((SECONDS - t)) s after the metrics API"
kc top node 2>/dev/null | sed 's/^/# /' || true

outside_up
busybox httpd -f -p "$OUT_IP:$OUT_PORT" -h "$WORK/www" &
OUT_HTTPD=$!
sleep 0.5
check "outside: the machine's own address on that link answers (the path works)" from_outside "$OUT_IP" "$OUT_PORT"
not_from_outside() { ! from_outside "$@"; }
check "outside: a host process on the node IP is unreachable" not_from_outside "$NODE_IP" "$HOST_PORT"
check "outside: the apiserver port is unreachable" not_from_outside "$OUT_IP" $((16443 + NEWSFEED_PORT_OFFSET))
kill "$OUT_HTTPD" "$HOST_HTTPD" 2>/dev/null || true; HOST_HTTPD="" OUT_HTTPD=""
outside_down

# ---------------------------------------------------------------- sections
# A section is ci/tests/cluster/NAME.sh, sourced by run_section (it may use check, kcheck, note, poll, kc, WORK, NS
# and the images of images.env). The release section (chart) runs after the teardown, on a node of its own: the one
# `make cluster-demo` starts; it sources the others on its release. NEWSFEED_CLUSTER_SECTIONS="" skips it.
SECTIONS=(chart)
read -ra SECTIONS <<< "${NEWSFEED_CLUSTER_SECTIONS-${SECTIONS[*]}}"
run_section() {
  if [ ! -f "ci/tests/cluster/$1.sh" ]; then fail_now "section $1: no ci/tests/cluster/$1.sh"; return; fi
  local section_t0=$SECONDS   # not t: sections use that name themselves
  # shellcheck source=/dev/null
  . "ci/tests/cluster/$1.sh"
  note "section $1 took $((SECONDS - section_t0)) s"
}

# ---------------------------------------------------------------- teardown
recorded_pids() { cat "$RUN"/*.pid "$RUN"/control-plane/*.pid 2>/dev/null | awk '{print $1}'; }
mapfile -t pids < <(recorded_pids)
t=$SECONDS
check "ci/local/cluster.sh down" bash ci/local/cluster.sh down
note "down took $((SECONDS - t)) s"
started=false
# a zombie is gone for our purposes (its parent, init here, reaps it when it gets to it)
none_alive() { local p; for p in "$@"; do [ -d "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] && return 1; done; return 0; }
check "no recorded process left" none_alive "${pids[@]}"
check "no container shim left" bash -c "! pgrep -f '[c]ontainerd-shim.*$RUN/'"
check "no mount left under the run dir" bash -c "! findmnt -rn -o TARGET | grep -F '$RUN/'"
check "no IP lease left" bash -c "! ls '$RUN'/cni/ipam/*/10.* 2>/dev/null"
machine_state > "$WORK/machine.after"
check "links, routes, netns, sysctls and iptables (filter, nat, mangle) as before up" \
  diff "$WORK/machine.before" "$WORK/machine.after"

t=$SECONDS
check "make cluster-up again (etcd keeps the cluster's objects)" make -s cluster-up
note "second up took $((SECONDS - t)) s"
started=true
check "up twice: already running" bash -c "bash ci/local/cluster.sh up 2>&1 | grep 'already running' > /dev/null"
check "make cluster-down" make -s cluster-down
started=false
check "down twice: nothing to stop" bash -c "bash ci/local/cluster.sh down 2>&1 | grep 'nothing to stop' > /dev/null"
machine_state > "$WORK/machine.after2"
check "machine as before after the second down" diff "$WORK/machine.before" "$WORK/machine.after2"

# ---------------------------------------------------------------- the README's one command, then the chart on its release
for section in "${SECTIONS[@]}"; do run_section "$section"; done

finish
[ "$failed" -eq 0 ]
