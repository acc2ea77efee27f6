# Section "monitoring" of the cluster suite, sourced by ci/tests/cluster/chart.sh on the release `make cluster-demo`
# left running, with the demo's Prometheus Operator and Prometheus (ci/local/cluster/monitoring.sh up) and the
# release's own PrometheusRule (it uses the suite's check, kcheck, note, poll, kc, WORK, BUSYBOX_IMAGE, node_image and
# cluster_target_up). Sourcing it checks that Prometheus (a ready StatefulSet pod the operator reconciled, restricted
# containers, the remote-write receiver) and starts what the checks read: in a namespace of its own, the chart's
# ServiceMonitor and Service (newsfeed-service) in front of a stand-in whose /metrics advances at known rates under a
# service name of its own, and a k6 pod remote-writing to that Prometheus. The checks are mon_checked, which chart.sh
# calls after its other sections (the target is picked up at a reload of Prometheus' config, up to 3 minutes later,
# and the recorded minutes need the samples of whole minutes): the target up, the stand-in's `service` label kept,
# every rule group of the release's PrometheusRule evaluated healthy, the recorded per-minute throughput and p50/p95
# as known, k6's remote-written requests recorded, and the per-minute report of ci/local/prometheus.sh made from it.
# chart.sh then brings the monitoring stack down: its namespace and RBAC gone, its CRDs kept while the release uses
# them (mon_down_in_use), and removed by a second down once the release is uninstalled (mon_gone).
# shellcheck shell=bash

MON_NS=monitoring-test
MON_RELEASE_NS=$RELEASE_NS
MON_TESTID=cluster-monitoring-$$
mon_t0=$SECONDS

# prom_value EXPR: the first sample's value of an instant query against the in-cluster Prometheus
prom_value() {
  curl -sf -m 5 "$PROM_URL/api/v1/query" --data-urlencode "query=$1" | jq -er '.data.result[0].value[1]'
}
# prom_between EXPR LOW HIGH: the query has a value in [LOW, HIGH]
prom_between() {
  local v; v=$(prom_value "$1") || return 1
  echo "$1 = $v"
  awk -v v="$v" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}
# every group of the chart's rules and alerts files loaded from the release's PrometheusRule, each seen with every
# rule evaluated healthy (remembered across polls: a reload of Prometheus makes the health "unknown" until the next run)
rules_healthy() {
  local want got
  want=$(yq_groups | sort | xargs)
  curl -sf -m 5 "$PROM_URL/api/v1/rules" | jq -r --arg ns "$MON_RELEASE_NS" '.data.groups[] |
    select(.file | contains("/" + $ns + "-")) | select(all(.rules[]; .health == "ok")) | .name' >> "$WORK/monitoring-rules-ok"
  got=$(sort -u "$WORK/monitoring-rules-ok" | xargs)
  echo "want: $want"; echo "got:  $got"
  [ -n "$want" ] && [ "$want" = "$got" ]
}
no_rule_error() {
  curl -sf -m 5 "$PROM_URL/api/v1/rules" | jq -e '[.data.groups[].rules[] | select(.health == "err")] | length == 0'
}
yq_groups() {  # the recording rules' groups and the alerts' (on by default in the PrometheusRule)
  python3 -c 'import sys, yaml; [print(g["name"]) for f in sys.argv[1:] for g in yaml.safe_load(open(f))["groups"]]' \
    charts/newsfeed/files/prometheus/newsfeed.rules.yml charts/newsfeed/files/prometheus/newsfeed.alerts.yml
}
# the pods of namespace monitoring: non-root, no privilege escalation, read-only root, every capability dropped
pods_restricted() {
  kc -n monitoring get pods -o json | jq -e '[.items[] | .spec as $s | ($s.containers + ($s.initContainers // []))[] |
    (($s.securityContext.runAsNonRoot == true) and (.securityContext.allowPrivilegeEscalation == false)
     and (.securityContext.readOnlyRootFilesystem == true) and ((.securityContext.capabilities.drop // []) | index("ALL") != null))]
    | length > 0 and all'
}
remote_write_on() {
  curl -sf -m 5 "$PROM_URL/api/v1/status/flags" | jq -e '.data["web.enable-remote-write-receiver"] == "true"'
}

# the chart's ServiceMonitor + Service (newsfeed-service as social-graph, scraped every 5s as the release's services
# are) in front of the stand-in
apply_chart_objects() {
  helm template newsfeed charts/newsfeed-service -n "$MON_NS" --set component=social-graph \
    --set metrics.serviceMonitor.enabled=true --set metrics.serviceMonitor.interval=5s \
    --show-only templates/servicemonitor.yaml --show-only templates/service.yaml > "$WORK/monitoring-chart.yaml" &&
    kc -n "$MON_NS" apply -f "$WORK/monitoring-chart.yaml"
}
# the stand-in's series keep its own service label "standin" (the recording rules sum by it, so the release's
# social-graph never mixes in), not the target's Service name as exported_service
own_service_label() {
  prom_value "count(newsfeed_http_server_requests_seconds_count{service=\"standin\", namespace=\"$MON_NS\"})" &&
    ! prom_value "count({exported_service!=\"\", namespace=\"$MON_NS\"})"
}
quantiles_known() {
  local q='service:newsfeed_http_server_requests_seconds:histogram_quantile{service="standin"'
  prom_between "$q,quantile=\"0.5\"}" 0.0085 0.0115 && prom_between "$q,quantile=\"0.95\"}" 0.0318 0.0432
}
report_made() {
  PROMETHEUS_URL=$PROM_URL bash ci/local/prometheus.sh report --start "$mon_start" --end "$mon_end" \
    --out "$WORK/monitoring-report" --testid "$MON_TESTID" && report_ok "$WORK/monitoring-report"
}
# after ci/local/cluster/monitoring.sh down: its namespace and cluster RBAC gone; the CRDs kept while the release's
# monitors and rules use them (mon_down_in_use), removed by a down after the release is gone (mon_gone)
mon_down() {
  ! kc get namespace monitoring 2>/dev/null &&
    [ -z "$(kc get clusterrole,clusterrolebinding -l app.kubernetes.io/part-of=newsfeed-monitoring -o name)" ]
}
mon_down_in_use() { mon_down && kc get crd servicemonitors.monitoring.coreos.com prometheusrules.monitoring.coreos.com; }
mon_gone() { mon_down && ! kc get crd -o name | grep monitoring.coreos.com > /dev/null; }
report_ok() {
  python3 - "$1/per-minute.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
http = [r for r in rows if r["kind"] == "http" and r["service"] == "standin" and r["per_minute"]]
k6 = [r for r in rows if r["kind"] == "k6" and r["per_minute"] and float(r["per_minute"]) > 0]
print(*(f'{r["minute_utc"]} {r["operation"]} {r["per_minute"]}/min p50 {r["p50_ms"]} p95 {r["p95_ms"]} ms' for r in http + k6), sep="\n")
good = [r for r in http if 510 <= float(r["per_minute"]) <= 690 and r["p95_ms"] and 31.8 <= float(r["p95_ms"]) <= 43.2]
sys.exit(0 if good and k6 else 1)
PY
}

# the demo's Prometheus, as the operator made it (from the images and CRDs of this command, cached: the demo ran it)
check "bash ci/local/tools.sh prometheus-operator (operator, reloader, images, CRDs)" bash ci/local/tools.sh prometheus-operator
PROM_URL=$(bash ci/local/cluster/monitoring.sh url 2>/dev/null || echo http://monitoring-not-up.invalid)
kcheck "the operator reconciled Prometheus newsfeed into a ready StatefulSet pod" \
  kc -n monitoring wait --for=condition=Ready pod/prometheus-newsfeed-0 --timeout=60s
kcheck "Prometheus newsfeed reports Available" kc -n monitoring wait --for=condition=Available prometheus/newsfeed --timeout=60s
check "the operator's and Prometheus's containers: non-root, read-only root, no escalation, no capabilities" pods_restricted
check "Prometheus answers from this machine at $PROM_URL (ClusterIP)" curl -sf -m 5 "$PROM_URL/-/ready"
check "remote-write receiver on" remote_write_on

# the chart's objects around a stand-in, and a k6 run remote-writing from a pod
kc create namespace "$MON_NS" >/dev/null 2>&1 || true
check "the chart's ServiceMonitor and Service applied in front of a stand-in" apply_chart_objects
K6_REF_TAR=$(node_image k6 2>"$WORK/k6-image.log" || true)
check "the k6 image (ci/local/cluster/images.sh build k6) imported" bash ci/local/cluster.sh import "${K6_REF_TAR#* }"
sed -e "s|@BUSYBOX_IMAGE@|$BUSYBOX_IMAGE|g" ci/tests/cluster/monitoring-standin.yaml |
  kc -n "$MON_NS" apply -f - > "$WORK/monitoring-standin.log" 2>&1 || true   # the rollout check reports it
kcheck "stand-in rolled out" kc -n "$MON_NS" rollout status deploy/social-graph-standin --timeout=120s
# k6 from now on: its remote writes need no scrape config, so it runs while Prometheus' reloader catches up
mon_begun=$(date +%s)
sed -e "s|@K6_IMAGE@|${K6_REF_TAR%% *}|g" -e "s|@TESTID@|$MON_TESTID|g" ci/tests/cluster/monitoring-k6.yaml |
  kc -n "$MON_NS" apply -f - >> "$WORK/monitoring-standin.log" 2>&1 || true   # the k6 checks report it
note "monitoring section set up in $((SECONDS - mon_t0)) s"

# the checks, after chart.sh's other sections: by then the stand-in has been scraped for minutes
mon_checked() {
  local t=$SECONDS range
  check "target serviceMonitor/$MON_NS/newsfeed-social-graph/0 up" poll 240 \
    cluster_target_up "serviceMonitor/$MON_NS/newsfeed-social-graph/0"
  check "honorLabels: the stand-in's own service label kept, no exported_service" own_service_label
  : > "$WORK/monitoring-rules-ok"
  check "every rule group of the release's PrometheusRule loaded and evaluated healthy" poll 150 rules_healthy
  check "recorded service:newsfeed_http_server_requests:per_minute of the stand-in = 600 (±15 %)" poll 180 \
    prom_between 'service:newsfeed_http_server_requests:per_minute{service="standin"}' 510 690
  check "recorded p50 = 10 ms, p95 = 37.5 ms (±15 %)" quantiles_known
  kcheck "the k6 Job completed" kc -n "$MON_NS" wait --for=condition=complete job/k6-probe --timeout=180s
  # its series ended minutes ago: read over the whole time since it began
  range=$(($(date +%s) - mon_begun + 60))
  check "k6 pod remote-wrote: k6_http_reqs_total{testid=$MON_TESTID}" \
    prom_value "sum(max_over_time(k6_http_reqs_total{testid=\"$MON_TESTID\"}[${range}s]))"
  check "recorded testid:k6_http_reqs:per_minute of the k6 pod = 300 (±20 %)" \
    prom_between "max_over_time(testid:k6_http_reqs:per_minute{testid=\"$MON_TESTID\"}[${range}s])" 240 360
  # every minute since the k6 run began: its minutes, and the stand-in's since its target was up
  mon_start=$mon_begun mon_end=$(date +%s)
  check "per-minute report from the in-cluster Prometheus (the stand-in 600/min, p95 37.5 ms, k6 rows)" report_made
  check "no rule evaluation failed" no_rule_error
  kc -n monitoring top pods --containers 2>/dev/null | sed 's/^/# /' || true
  kc delete namespace "$MON_NS" --wait --timeout=120s >/dev/null 2>&1 || true
  note "monitoring checks took $((SECONDS - t)) s"
}
