#!/usr/bin/env bash
# The same load in the cluster and as local processes, on the same machine and the same stores: what running in
# the node costs. For each workload, k6/experiment.js at one offered rate is run by ci/bench/experiment.sh twice:
#   cluster: --mode cluster against the release of ci/local/cluster/install.sh (k6 in a Job, the Services, the
#            in-cluster Prometheus), one replica of each service;
#   local:   --mode local with the same stores (the node stack's stack.env), one instance of each service, k6 and
#            the gateway on this machine, its own Prometheus; the release's Deployments are scaled to 0 meanwhile
#            (they would join the same Kafka consumer groups) and scaled back after.
# Then a table of throughput and p95 in both modes and their ratios (cluster / local for throughput, local /
# cluster for p95: 1.0 = no cost, above 0.8 = the target).
#
# Usage: ci/bench/experiment/cluster-vs-local.sh [--workloads "posts reads"] [--duration 60s] [--warmup 30s] [--out DIR]
#   posts: posts only at POSTS_RATE (600/s), fan-out to 10 friends;  reads: inbound feed reads at READS_RATE (1500/s)
# Needs: the node (ci/local/cluster.sh up), ci/local/cluster/monitoring.sh up, the release installed by ci/local/cluster/install.sh
# with ci/local/cluster/monitoring/values.yaml; NEWSFEED_RUN as for them. Local instances use port offset
# NEWSFEED_COMPARE_OFFSET (default 1475) in $NEWSFEED_RUN/compare-local. The numbers are read, not asserted.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export NEWSFEED_RUN=${NEWSFEED_RUN:-$PWD/.run}
PATH=${NEWSFEED_BIN:-${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/bin}:$PATH
log() { echo "[cluster-vs-local $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

WORKLOADS="posts reads" DURATION=60s WARMUP=30s OUT=""
while [ $# -gt 0 ]; do
  case $1 in
    --workloads) WORKLOADS=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
NS=newsfeed RELEASE=newsfeed
CHART=$NEWSFEED_RUN/node-install/chart/newsfeed
STACK_ENV=$NEWSFEED_RUN/node-stack/stack.env
OUT=${OUT:-$NEWSFEED_RUN/experiments/cluster-vs-local-$(date -u +%Y%m%dt%H%M%Sz)}
mkdir -p "$OUT"
eval "$(bash ci/local/cluster.sh env)" || die "the node is not running (bash ci/local/cluster.sh up)"
PROMETHEUS_URL=$(bash ci/local/cluster/monitoring.sh url) || die "ci/local/cluster/monitoring.sh is not up"
[ -f "$STACK_ENV" ] && [ -d "$CHART" ] || die "no release of ci/local/cluster/install.sh (no $STACK_ENV or $CHART)"
helm -n "$NS" status "$RELEASE" >/dev/null || die "no release $RELEASE in namespace $NS"

COMMON=(--scenario experiment --replicas 1 --duration "$DURATION" --warmup "$WARMUP" --throughput api --no-chart
  --env PARTICIPANTS=1000 --env FRIENDS=10 --env PREFILL_POSTS=3 --env CHECK_EVERY=10 --env PRE_ALLOCATED_VUS=200)
workload_args() {
  case $1 in
    posts) echo "--service outbound --rate ${POSTS_RATE:-600} --env POST_SHARE=1 --env INBOUND_SHARE=0" ;;
    reads) echo "--service inbound --rate ${READS_RATE:-1500} --env POST_SHARE=0 --env INBOUND_SHARE=1" ;;
    *) die "unknown workload $1 (posts, reads)" ;;
  esac
}

declare -A SAVED=()
scale_release() {   # 0 | back
  local d
  for d in $(kubectl -n "$NS" get deploy -l "app.kubernetes.io/instance=$RELEASE" -o name); do
    if [ "$1" = 0 ]; then SAVED[$d]=$(kubectl -n "$NS" get "$d" -o jsonpath='{.spec.replicas}'); kubectl -n "$NS" scale "$d" --replicas=0 >&2
    else kubectl -n "$NS" scale "$d" --replicas="${SAVED[$d]:-1}" >&2; fi
  done
  [ "$1" = 0 ] || kubectl -n "$NS" wait --for=condition=Available deploy -l "app.kubernetes.io/instance=$RELEASE" --timeout=300s >&2
}
restore() { [ ${#SAVED[@]} -eq 0 ] || scale_release back || true; }
trap restore EXIT

# the local processes log in to the node stack (with authentication) as its admins, and search to Solr as its admin
# (stack.env names it SOLR_ADMIN_*, so search never takes it by accident)
LOCAL_ENV=$OUT/service-env
mkdir -p "$LOCAL_ENV"; chmod 700 "$LOCAL_ENV"
(umask 077; sed -n 's/^SOLR_ADMIN_\(USERNAME\|PASSWORD\)=/SOLR_\1=/p' "$STACK_ENV" > "$LOCAL_ENV/search.env")

for w in $WORKLOADS; do
  read -ra args <<< "$(workload_args "$w")"
  log "$w in the cluster"
  PROMETHEUS_URL=$PROMETHEUS_URL bash ci/bench/experiment.sh --mode cluster "${args[@]}" "${COMMON[@]}" --chart "$CHART" \
    --namespace "$NS" --release "$RELEASE" --out "$OUT/$w-cluster" >&2
  log "$w as local processes (the release scaled to 0 meanwhile)"
  scale_release 0
  NEWSFEED_RUN=$NEWSFEED_RUN/compare-local NEWSFEED_PORT_OFFSET=${NEWSFEED_COMPARE_OFFSET:-1475} \
    NEWSFEED_STACK_ENV=$STACK_ENV SERVICE_ENV_DIR=$LOCAL_ENV bash ci/bench/experiment.sh --mode local "${args[@]}" "${COMMON[@]}" --out "$OUT/$w-local" >&2
  scale_release back; SAVED=()
done

python3 - "$OUT" $WORKLOADS > "$OUT/comparison.md" <<'PY'
import json, sys
out, workloads = sys.argv[1], sys.argv[2:]
def row(w, mode):
    with open(f"{out}/{w}-{mode}/results.jsonl") as f:
        return json.loads(f.readline())
def ratio(a, b):
    return "–" if not a or not b else f"{a / b:.2f}"
print("| workload | mode | k6 requests/s | service p95 ms | k6 p95 ms | k6 failed | dropped | host CPU busy |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
ratios = []
for w in workloads:
    rows = {m: row(w, m) for m in ("local", "cluster")}
    for m, r in rows.items():
        print(f"| {w} | {m} | {r['api_rpm'] / 60:,.0f} | {r['p95_ms']} | {r['api_p95_ms']} | {r['api_error_ratio']} | "
              f"{r['dropped_iterations']} | {r['host_cpu_busy']} |")
    l, c = rows["local"], rows["cluster"]
    ratios.append(f"| {w} | {ratio(c['api_rpm'], l['api_rpm'])} | {ratio(l['p95_ms'], c['p95_ms'])} | "
                  f"{ratio(l['api_p95_ms'], c['api_p95_ms'])} |")
print()
print("| workload | throughput cluster / local | service p95 local / cluster | k6 p95 local / cluster |")
print("|---|---:|---:|---:|")
print("\n".join(ratios))
PY
cat "$OUT/comparison.md"
log "in $OUT: comparison.md, <workload>-<mode>/ (each run's results)"
