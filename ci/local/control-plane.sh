#!/usr/bin/env bash
# A real Kubernetes control plane on loopback, no containers and no kubelet: etcd + kube-apiserver +
# kube-controller-manager. Objects are real (validated, defaulted, stored; Deployments get ReplicaSets and
# Pods), Pods stay Pending. Used to `helm install` the charts for real (ci/tests/charts.sh).
# Usage: ci/local/control-plane.sh start|stop|status|env
#   env prints `export KUBECONFIG=...`; run dir ${NEWSFEED_RUN:-<repo>/.run}/control-plane;
#   every port is shifted by NEWSFEED_PORT_OFFSET. Binaries: ~/.cache/newsfeed/bin (bash ci/local/tools.sh all).
#   NEWSFEED_APISERVER_ARGS: extra kube-apiserver flags after the defaults (the last of a repeated flag wins);
#   ci/local/cluster.sh uses it to serve pods on the node IP. A pre-made $RUN/certs/apiserver.{crt,key} is served
#   as is (the kubeconfig trusts that file); without one the apiserver makes a self-signed pair.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${NEWSFEED_BIN:-${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/bin}
NEWSFEED_RUN=${NEWSFEED_RUN:-$REPO_ROOT/.run}
RUN=$NEWSFEED_RUN/control-plane
OFFSET=${NEWSFEED_PORT_OFFSET:-0}
# outside the ports of docs/contracts.md so a control plane runs beside the local stack
ETCD_PORT=$((12379 + OFFSET))
ETCD_PEER_PORT=$((12380 + OFFSET))
API_PORT=$((16443 + OFFSET))
KCM_PORT=$((16257 + OFFSET))
SERVICE_CIDR=10.96.0.0/16
COMPONENTS=(etcd kube-apiserver kube-controller-manager)
READY_TIMEOUT=${NEWSFEED_CONTROL_PLANE_TIMEOUT:-120}

log() { echo "[control-plane $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# shellcheck source=ci/local/process.sh
source "$REPO_ROOT/ci/local/process.sh"   # pid files that survive recycled PIDs
pid_file() { echo "$RUN/$1.pid"; }
component_pid() { recorded_pid "$(pid_file "$1")"; }
running() { component_pid "$1" >/dev/null; }

# spawn NAME CMD...: detached, its log and pid file in $RUN (ci/local/process.sh)
spawn() { spawn_recorded "$RUN/$1.log" "$(pid_file "$1")" "${@:2}" || die "$1 exited at once"; }

token() { cut -d, -f1 "$RUN/token.csv"; }

# wait_ok NAME URL: polls URL until it answers 2xx; fails early if the component died.
wait_ok() {
  local name=$1 url=$2 deadline=$((SECONDS + READY_TIMEOUT))
  until curl -sfk -o /dev/null -H "Authorization: Bearer $(token)" "$url"; do
    running "$name" || { log "$name exited; last log lines:"; tail -n 30 "$RUN/$name.log" >&2; return 1; }
    [ $SECONDS -lt $deadline ] || { log "$name not ready after ${READY_TIMEOUT}s:"; tail -n 30 "$RUN/$name.log" >&2; return 1; }
    sleep 0.2
  done
}

write_kubeconfig() {
  cat > "$RUN/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: newsfeed-local
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority: $RUN/certs/apiserver.crt
users:
- name: admin
  user:
    token: $(token)
contexts:
- name: newsfeed-local
  context: {cluster: newsfeed-local, user: admin, namespace: default}
current-context: newsfeed-local
EOF
  chmod 600 "$RUN/kubeconfig"
}

start() {
  local c missing=0
  for c in "${COMPONENTS[@]}"; do running "$c" || missing=1; done
  if [ $missing = 0 ]; then log "already running; KUBECONFIG=$RUN/kubeconfig"; return 0; fi
  stop   # a half-running plane (one component died) is restarted whole
  for c in "${COMPONENTS[@]}"; do [ -x "$BIN/$c" ] || die "$BIN/$c missing: run bash ci/local/tools.sh all"; done
  for c in $ETCD_PORT $ETCD_PEER_PORT $API_PORT $KCM_PORT; do
    port_open "$c" && die "port $c is taken (another control plane? set NEWSFEED_PORT_OFFSET)"
  done
  mkdir -p "$RUN"
  chmod 700 "$RUN"
  [ -f "$RUN/sa.key" ] || openssl genrsa -out "$RUN/sa.key" 2048 2>/dev/null
  openssl rsa -in "$RUN/sa.key" -pubout -out "$RUN/sa.pub" 2>/dev/null
  # a fresh random admin token per run dir; only the kubeconfig (mode 600) carries it
  [ -f "$RUN/token.csv" ] || (umask 077; echo "$(openssl rand -hex 24),admin,admin-uid,system:masters" > "$RUN/token.csv")

  log "starting etcd on 127.0.0.1:$ETCD_PORT"
  # Debian's etcd is 3.4: no --unsafe-no-fsync; a small quota keeps the data file small
  spawn etcd "$BIN/etcd" --name newsfeed --data-dir "$RUN/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "newsfeed=http://127.0.0.1:$ETCD_PEER_PORT" \
    --quota-backend-bytes=2147483648 --snapshot-count=10000 --log-level=warn --logger=zap
  wait_ok etcd "http://127.0.0.1:$ETCD_PORT/health" || { stop; return 1; }

  log "starting kube-apiserver on https://127.0.0.1:$API_PORT"
  local extra_args=()
  read -ra extra_args <<< "${NEWSFEED_APISERVER_ARGS:-}"
  # --endpoint-reconciler-type=none: required when advertising a loopback address
  spawn kube-apiserver "$BIN/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" --cert-dir="$RUN/certs" \
    --token-auth-file="$RUN/token.csv" --authorization-mode=RBAC \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$RUN/sa.pub" --service-account-signing-key-file="$RUN/sa.key" \
    --service-cluster-ip-range="$SERVICE_CIDR" --allow-privileged=true --endpoint-reconciler-type=none \
    --profiling=false "${extra_args[@]}"
  wait_ok kube-apiserver "https://127.0.0.1:$API_PORT/readyz" || { stop; return 1; }
  write_kubeconfig

  log "starting kube-controller-manager"
  # makes ReplicaSets/Pods from Deployments, Jobs, the default ServiceAccount of each namespace, HPA status
  spawn kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig="$RUN/kubeconfig" \
    --authentication-kubeconfig="$RUN/kubeconfig" --authorization-kubeconfig="$RUN/kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --cert-dir="$RUN/kcm-certs" --leader-elect=false \
    --service-account-private-key-file="$RUN/sa.key" --root-ca-file="$RUN/certs/apiserver.crt" \
    --use-service-account-credentials=false --service-cluster-ip-range="$SERVICE_CIDR" --profiling=false
  wait_ok kube-controller-manager "https://127.0.0.1:$KCM_PORT/healthz" || { stop; return 1; }
  # Pods are admitted only once the namespace's 'default' ServiceAccount exists
  local deadline=$((SECONDS + READY_TIMEOUT))
  until curl -sfk -o /dev/null -H "Authorization: Bearer $(token)" \
    "https://127.0.0.1:$API_PORT/api/v1/namespaces/default/serviceaccounts/default"; do
    [ $SECONDS -lt $deadline ] || { log "no default ServiceAccount after ${READY_TIMEOUT}s"; stop; return 1; }
    sleep 0.2
  done
  log "up; KUBECONFIG=$RUN/kubeconfig"
}

stop() {
  local c pid
  for c in kube-controller-manager kube-apiserver etcd; do
    if pid=$(component_pid "$c"); then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
      if alive "$pid"; then log "$c did not stop in 10s: SIGKILL"; kill -9 "$pid" 2>/dev/null || true; fi
    fi
    rm -f "$(pid_file "$c")"
  done
}

# status: one line per component; exit 0 only when the whole plane runs and /readyz answers
status() {
  local c rc=0
  for c in "${COMPONENTS[@]}"; do
    if running "$c"; then echo "$c running (pid $(component_pid "$c"))"; else echo "$c not running"; rc=3; fi
  done
  if [ $rc = 0 ] && ! curl -sfk -o /dev/null -H "Authorization: Bearer $(token)" "https://127.0.0.1:$API_PORT/readyz"; then
    echo "kube-apiserver not ready"; rc=3
  fi
  return $rc
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  env) echo "export KUBECONFIG=$RUN/kubeconfig" ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
