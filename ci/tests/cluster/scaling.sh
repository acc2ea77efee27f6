# Section "scaling" of the cluster suite, sourced by ci/tests/cluster/chart.sh on the release `make cluster-demo` left
# running (it uses the suite's check, kcheck, note, poll, kc and WORK): the scaling runner and the autoscaling run
# against the real release, at a small scale. The demo's Prometheus Operator is ready and its release has the
# monitoring layer (ServiceMonitors, recording rules, k6 remote write); then
#   ci/bench/experiment.sh --mode cluster: outbound at 1 and 2 replicas of 250m, each measured from that Prometheus
#     (both instances seen, the table, the chart, the host CPU of this node), then the release rolled back;
#   ci/bench/experiment/autoscaling.sh: outbound under values/scaling/hpa-local-node.yaml scales out under k6 and back
#     to 1 replica, its counts recorded, and the release rolled back to what it was;
#   ci/bench/experiment/drain.sh --per-replica: inbound's consumers drain a backlog of posts (twice as large for 2) at 1 and
#     2 replicas of 200m (a JVM starts in half the time it takes under 100m), each drain rate and CPU per event
#     measured, and the release rolled back.
# (chart.sh brings the monitoring stack down after it, once the solr section's scrape checks are done.)
# shellcheck shell=bash

SC_NS=$RELEASE_NS
SC_CHART=$NEWSFEED_RUN/node-install/chart/newsfeed   # the offline copy ci/local/cluster/install.sh installed
sc_t0=$SECONDS
sc_prom() { PROMETHEUS_URL=$(bash ci/local/cluster/monitoring.sh url) "$@"; }
# the five services' ServiceMonitor targets up in that Prometheus (its new scrape config reaches the pod through a
# Secret volume: up to a minute), so the runner's first count is scraped from its start
# (the Kafka lag exporter's ServiceMonitor is the namespace's sixth: not a service)
sc_targets_up() {
  curl -sf -m 5 "$(bash ci/local/cluster/monitoring.sh url)/api/v1/targets?state=active" | jq -e --arg ns "$SC_NS" '
    [.data.activeTargets[] | select((.scrapePool | startswith("serviceMonitor/\($ns)/")) and .health == "up")
     | select(.scrapePool != "serviceMonitor/\($ns)/newsfeed-kafka-lag-exporter/0") | .labels.service]
    | unique | length == 5'
}

# the runner's results: one row per count, each count's instances all scraped, a throughput, the host CPU
sc_results() {
  local r=$WORK/scaling-experiment
  cat "$r/results.md"
  # its --pad from the scrape interval of ci/local/cluster/monitoring/values.yaml (5 s) + 10
  jq -e '.pad == 15' "$r/experiment.json" && [ -s "$r/throughput.png" ] && jq -se '
    length == 2 and ([.[].replicas] == [1, 2]) and all(.[]; .instances == .replicas)
    and all(.[]; .throughput_per_min > 0 and .p95_ms != null and .host_cpu_busy != null)' "$r/results.jsonl"
}
sc_experiment() {
  sc_prom bash ci/bench/experiment.sh --mode cluster --service outbound --replicas "1 2" --scenario experiment \
    --rate 40 --duration 20s --chart "$SC_CHART" --namespace "$SC_NS" --cpu-limit 250m \
    --env POST_SHARE=1 --env INBOUND_SHARE=0 --env PARTICIPANTS=100 --env FRIENDS=2 --env PREFILL_POSTS=1 \
    --out "$WORK/scaling-experiment"
}

# 60 posts/s: more than a fresh 100m replica serves (its CPU at the limit, so the HPA scales out), yet little enough
# that it stays Ready. Measured on this node at 300/s: the lone replica's readiness probes timed out within seconds,
# it left its Service, and the second replica met the whole load alone (in one run of two, never Ready). 150 s of
# load: in a run of 90 s the HPA scaled out only 65 s in, and the new replica, a JVM starting under 100m, was not
# Ready before the load ended and the HPA scaled back in
SC_HPA_LOAD_S=150
sc_autoscaling() {
  bash ci/bench/experiment/autoscaling.sh --chart "$SC_CHART" --namespace "$SC_NS" --rate "${SC_HPA_RATE:-60}" \
    --duration "${SC_HPA_LOAD_S}s" --back-timeout 240 --out "$WORK/autoscaling"
}
# at 1 replica when the load began (its warm-up Job ran before the HPA existed), scaled out beyond 1 under the
# load, back to 1 after it, every sample recorded, the chart drawn
sc_scaled() {
  local a=$WORK/autoscaling
  cat "$a/summary.md"
  [ -s "$a/replicas.png" ] && [ "$(wc -l < "$a/replicas.csv")" -gt 10 ] &&
    jq -e '.at_min_when_load_began and .scaled_out and .highest_ready >= 2 and .back_to_min' "$a/summary.json"
}
# the rollbacks of both: no HPA left, outbound at 1 replica without a CPU limit as installed
sc_rolled_back() {
  [ -z "$(kc -n "$SC_NS" get hpa -o name)" ] &&
    [ "$(kc -n "$SC_NS" get deploy newsfeed-outbound -o jsonpath='{.spec.replicas}')" = 1 ] &&
    [ -z "$(kc -n "$SC_NS" get deploy newsfeed-outbound -o jsonpath='{.spec.template.spec.containers[0].resources.limits.cpu}')" ]
}

sc_drain() {
  sc_prom bash ci/bench/experiment/drain.sh --service inbound --replicas "1 2" --cpu-limit 200m --rate 100 --duration 15s \
    --per-replica --chart "$SC_CHART" --namespace "$SC_NS" --env POST_SHARE=1 --env INBOUND_SHARE=0 --env PARTICIPANTS=100 \
    --env FRIENDS=5 --env PREFILL_POSTS=0 --env PREFILL_TIMEOUT_S=0 --out "$WORK/drain"
}
sc_drained() {
  local d=$WORK/drain
  cat "$d/results.md"
  grep -F "scraped namespace $SC_NS every 5 s" "$d/results.md" > /dev/null &&
    [ "$(tail -n +2 "$d/results.csv" | wc -l)" = 2 ] &&
    # columns: replicas,backlog,events_per_s,efficiency,seconds_to_90pct,consumer_cores,cpu_ms_per_event,host_cpu_busy,
    # exact,drained; --per-replica: 2 replicas got about twice the backlog of 1
    awk -F, 'NR > 1 { gsub(/"/, ""); if (!($3 > 0) || !($7 > 0) || $10 != "true") bad = 1; b[NR] = $2 }
      END { if (!(b[3] > 1.5 * b[2] && b[3] < 2.5 * b[2])) bad = 1; exit bad }' "$d/results.csv" &&
    [ "$(kc -n "$SC_NS" get deploy newsfeed-inbound -o jsonpath='{.spec.replicas}')" = 1 ] &&
    [ -z "$(kc -n "$SC_NS" get deploy newsfeed-inbound -o jsonpath='{.spec.template.spec.containers[0].resources.limits.cpu}')" ]
}

# the demo brought the Prometheus Operator up and installed the release with ci/local/cluster/monitoring/values.yaml
check "ci/local/cluster/monitoring.sh status (Prometheus ready)" bash ci/local/cluster/monitoring.sh status
check "Prometheus scrapes the five services through their ServiceMonitors" poll 180 sc_targets_up
sc_t=$SECONDS
check "ci/bench/experiment.sh --mode cluster --service outbound --replicas \"1 2\" --cpu-limit 250m" sc_experiment
note "the scaling runner took $((SECONDS - sc_t)) s"
check "its table and chart: 2 counts, every instance measured from the in-cluster Prometheus, host CPU; read 15 s after each run (5 s scrapes)" sc_results
sc_t=$SECONDS
check "ci/bench/experiment/autoscaling.sh (values/scaling/hpa-local-node.yaml, k6 for $SC_HPA_LOAD_S s)" sc_autoscaling
note "the autoscaling run took $((SECONDS - sc_t)) s"
check "the HPA, at 1 replica when the load began, scaled outbound out under the load and back to 1 after it, counts recorded" sc_scaled
sed -n '/^| when/,/^| back/p' "$WORK/autoscaling/summary.md" 2>/dev/null | sed 's/^/# /' || true
kcheck "the release rolled back by both: no HPA, outbound at 1 replica without a CPU limit, as installed" sc_rolled_back
sc_t=$SECONDS
check "ci/bench/experiment/drain.sh --service inbound --replicas \"1 2\" --cpu-limit 200m --per-replica" sc_drain
note "the drain run took $((SECONDS - sc_t)) s"
check "its table: both counts drained a backlog proportional to N at a measured rate and CPU per event, counters read at the 5 s scrape interval; inbound back at 1 replica, no CPU limit" sc_drained
note "scaling section took $((SECONDS - sc_t0)) s"
