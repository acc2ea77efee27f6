#!/usr/bin/env bash
# `make cluster-demo`: the whole system in a real Kubernetes on this machine, one command. The node
# (ci/local/cluster.sh), the Prometheus Operator and its Prometheus (ci/local/cluster/monitoring.sh), the ingress controller
# (ci/local/cluster/ingress.sh), the chart installed with values/local-node.yaml plus the monitoring and ingress layers
# (ci/local/cluster/install.sh: stores on the node IP, CloudNativePG, helm install --wait, helm test, the API, k6 smoke
# and social Jobs); then a k6 social Job from the chart's CronJob at DEMO_RATE for DEMO_DURATION, remote-writing to the
# in-cluster Prometheus, and the per-minute report (HTML, Markdown, CSV, PNG charts) read from that Prometheus.
# Stops everything it started unless KEEP_RUNNING=1; then it ends with where the API, Prometheus and the report
# are and the command that stops it all.
#   DEMO_DURATION (default 3m)  DEMO_RATE (iterations/s, default 50)  NEWSFEED_RUN (default .run)
set -euo pipefail
cd "$(dirname "$0")/../../.."
export NEWSFEED_RUN=${NEWSFEED_RUN:-$PWD/.run}
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-0}
DEMO_DURATION=${DEMO_DURATION:-3m}
DEMO_RATE=${DEMO_RATE:-50}
NS=newsfeed RELEASE=newsfeed
log() { echo "[cluster-demo $(date +%T)] $*"; }
# shellcheck source=ci/local/demo-common.sh
source ci/local/demo-common.sh

[ "$(id -u)" = 0 ] || { log "the node needs root (containers, bridges, iptables)"; exit 1; }
PATH="$(bash ci/local/tools.sh all node prometheus-operator ingress cnpg | tail -n 1):$PATH"; export PATH

stop_all() {
  [ "${KEEP_RUNNING:-0}" = 1 ] && return
  bash ci/local/cluster/install.sh down || true
  bash ci/local/cluster/ingress.sh down || true
  bash ci/local/cluster/monitoring.sh down || true
  bash ci/local/cluster.sh down || true
}
trap stop_all EXIT

bash ci/local/cluster.sh up
eval "$(bash ci/local/cluster.sh env)"

bash ci/local/cluster/monitoring.sh up
bash ci/local/cluster/ingress.sh up
NEWSFEED_NODE_VALUES="ci/local/cluster/monitoring/values.yaml ci/local/cluster/ingress/values.yaml" bash ci/local/cluster/install.sh up
PROMETHEUS_URL=$(bash ci/local/cluster/monitoring.sh url)
INGRESS_URL=$(bash ci/local/cluster/ingress.sh url)
INGRESS_HOST=$(awk '/^  hostname:/ {print $2}' ci/local/cluster/ingress/values.yaml)

# the run's id is the Job's name (a label on every k6 series); RATE and DURATION replace the CronJob's profile
testid=cluster-demo-$(date +%Y%m%d-%H%M%S)
log "k6 social Job $testid in the node: $DEMO_RATE it/s for $DEMO_DURATION"
start=$(date +%s)
kubectl -n "$NS" create job --from="cronjob/$RELEASE-k6-social" "$testid" --dry-run=client -o json |
  jq --arg rate "$DEMO_RATE" --arg duration "$DEMO_DURATION" '
    .spec.template.spec.containers |= map(.env = ([(.env // [])[] | select(.name != "RATE" and .name != "DURATION")]
      + [{name: "RATE", value: $rate}, {name: "DURATION", value: $duration}]))' |
  kubectl -n "$NS" apply -f - > /dev/null
k6_rc=0
kubectl -n "$NS" wait --for=condition=complete "job/$testid" --timeout=30m > /dev/null || k6_rc=1
kubectl -n "$NS" logs "job/$testid" --tail=40 || true
[ "$k6_rc" = 0 ] || log "the k6 Job did not complete (thresholds or errors): its log is above"

# whole minutes, as make demo: the window ends once the run's last minute is recorded
end=$(report_end)
out=$NEWSFEED_RUN/reports/$testid
PROMETHEUS_URL=$PROMETHEUS_URL bash ci/local/prometheus.sh report --start "$start" --end "$end" --out "$out" --testid "$testid"
log "report:     $out/per-minute.html (per-minute.md, .csv and PNG charts beside it), from the in-cluster Prometheus"
if [ "${KEEP_RUNNING:-0}" = 1 ]; then
  log "API:        $INGRESS_URL with Host: $INGRESS_HOST (the chart's Ingress; e.g. curl -H 'Host: $INGRESS_HOST' $INGRESS_URL/participant/1)"
  log "Prometheus: $PROMETHEUS_URL (the chart's recording rules: $PROMETHEUS_URL/rules)"
  log "kubectl:    export KUBECONFIG=$KUBECONFIG"
  log "still running; stop everything with: $(stop_command)"
fi
exit "$k6_rc"
