# Section "monitoring" of the cluster suite, sourced by ci/tests/cluster.sh while the node is up (it uses the
# suite's check, kcheck, note, poll, kc, WORK, BUSYBOX_IMAGE, node_image and cluster_target_up): the Prometheus
# Operator of ci/local/cluster/monitoring.sh reconciles its Prometheus into a running pod; the chart's own ServiceMonitor
# (newsfeed-service, in front of a stand-in whose /metrics advances at known rates) and PrometheusRule are
# picked up: target up, the services' `service` label kept, every rule group healthy, the recorded per-minute
# throughput and p50/p95 as known; a k6 pod remote-writes to it; the per-minute report of ci/local/prometheus.sh
# is made from it; down removes the namespace, the RBAC and the CRDs.
# shellcheck shell=bash

MON_NS=monitoring-test
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
# every group of the chart's rules and alerts files loaded from the PrometheusRule, each seen with every rule evaluated
# healthy (remembered across polls: a reload of Prometheus makes the health "unknown" until the next run)
rules_healthy() {
  local want got
  want=$(yq_groups | sort | xargs)
  curl -sf -m 5 "$PROM_URL/api/v1/rules" | jq -r --arg ns "$MON_NS" '.data.groups[] |
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

# the chart's ServiceMonitor + Service (newsfeed-service as social-graph, scraped every 5s as the local Prometheus
# does) and its PrometheusRule (the umbrella's template, rendered from a copy without the Bitnami dependencies
# no chart repository here can serve)
render_chart_objects() {
  local copy=$WORK/monitoring-chart
  rm -rf "$copy"; cp -rL charts/newsfeed "$copy"
  python3 - "$copy/Chart.yaml" <<'PY'
import sys, yaml
chart = yaml.safe_load(open(sys.argv[1])); chart.pop("dependencies", None)
yaml.safe_dump(chart, open(sys.argv[1], "w"), sort_keys=False)
PY
  rm -f "$copy/Chart.lock"
  find "$copy/templates" -type f ! -name '_*' ! -name prometheusrule.yaml -delete
  helm template newsfeed charts/newsfeed-service -n "$MON_NS" --set component=social-graph \
    --set metrics.serviceMonitor.enabled=true --set metrics.serviceMonitor.interval=5s \
    --show-only templates/servicemonitor.yaml --show-only templates/service.yaml &&
    helm template newsfeed "$copy" -n "$MON_NS" --set monitoring.prometheusRule.enabled=true
}
remote_write_on() {
  curl -sf -m 5 "$PROM_URL/api/v1/status/flags" | jq -e '.data["web.enable-remote-write-receiver"] == "true"'
}
apply_chart_objects() { render_chart_objects > "$WORK/monitoring-chart.yaml" && kc -n "$MON_NS" apply -f "$WORK/monitoring-chart.yaml"; }
own_service_label() {
  prom_value "count(newsfeed_http_server_requests_seconds_count{service=\"social-graph\", namespace=\"$MON_NS\"})" &&
    ! prom_value "count({exported_service!=\"\", namespace=\"$MON_NS\"})"
}
quantiles_known() {
  local q='service:newsfeed_http_server_requests_seconds:histogram_quantile{service="social-graph"'
  prom_between "$q,quantile=\"0.5\"}" 0.0085 0.0115 && prom_between "$q,quantile=\"0.95\"}" 0.0318 0.0432
}
report_made() {
  PROMETHEUS_URL=$PROM_URL bash ci/local/prometheus.sh report --start "$mon_start" --end "$mon_end" \
    --out "$WORK/monitoring-report" --testid "$MON_TESTID" && report_ok "$WORK/monitoring-report"
}
monitoring_gone() {
  ! kc get namespace monitoring 2>/dev/null &&
    [ -z "$(kc get clusterrole,clusterrolebinding -l app.kubernetes.io/part-of=newsfeed-monitoring -o name)" ] &&
    ! kc get crd -o name | grep monitoring.coreos.com > /dev/null
}
report_ok() {
  python3 - "$1/per-minute.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
http = [r for r in rows if r["kind"] == "http" and r["service"] == "social-graph" and r["per_minute"]]
k6 = [r for r in rows if r["kind"] == "k6" and r["per_minute"] and float(r["per_minute"]) > 0]
print(*(f'{r["minute_utc"]} {r["operation"]} {r["per_minute"]}/min p50 {r["p50_ms"]} p95 {r["p95_ms"]} ms' for r in http + k6), sep="\n")
good = [r for r in http if 510 <= float(r["per_minute"]) <= 690 and r["p95_ms"] and 31.8 <= float(r["p95_ms"]) <= 43.2]
sys.exit(0 if good and k6 else 1)
PY
}

mon_t=$SECONDS
check "bash ci/local/tools.sh prometheus-operator (operator, reloader, images, CRDs)" bash ci/local/tools.sh prometheus-operator
note "prometheus-operator tools took $((SECONDS - mon_t)) s"
mon_t=$SECONDS
check "ci/local/cluster/monitoring.sh up" bash ci/local/cluster/monitoring.sh up
note "monitoring up took $((SECONDS - mon_t)) s"
if [ "$LAST" != ok ]; then   # nothing below can pass: leave the node as found and skip the section
  bash ci/local/cluster/monitoring.sh down >/dev/null 2>&1 || true
  return 0
fi
PROM_URL=$(bash ci/local/cluster/monitoring.sh url 2>/dev/null || echo http://monitoring-not-up.invalid)
kcheck "the operator reconciled Prometheus newsfeed into a ready StatefulSet pod" \
  kc -n monitoring wait --for=condition=Ready pod/prometheus-newsfeed-0 --timeout=60s
kcheck "Prometheus newsfeed reports Available" kc -n monitoring wait --for=condition=Available prometheus/newsfeed --timeout=60s
check "the operator's and Prometheus's containers: non-root, read-only root, no escalation, no capabilities" pods_restricted
check "Prometheus answers from this machine at $PROM_URL (ClusterIP)" curl -sf -m 5 "$PROM_URL/-/ready"
check "remote-write receiver on" remote_write_on

# the chart's objects around a stand-in, and a k6 run remote-writing from a pod
kc create namespace "$MON_NS" >/dev/null 2>&1 || true
check "the chart's ServiceMonitor, Service and PrometheusRule applied" apply_chart_objects
K6_REF_TAR=$(node_image k6 2>"$WORK/k6-image.log" || true)
check "the k6 image (ci/local/cluster/images.sh build k6) imported" bash ci/local/cluster.sh import "${K6_REF_TAR#* }"
sed -e "s|@BUSYBOX_IMAGE@|$BUSYBOX_IMAGE|g" ci/tests/cluster/monitoring-standin.yaml |
  kc -n "$MON_NS" apply -f - > "$WORK/monitoring-standin.log" 2>&1 || true   # the rollout check reports it
kcheck "stand-in for social-graph rolled out" kc -n "$MON_NS" rollout status deploy/social-graph-standin --timeout=120s
mon_t=$SECONDS
# (the operator's new config reaches the pod through a Secret volume, at the kubelet's next sync of the pod: 10 s)
check "target serviceMonitor/$MON_NS/newsfeed-social-graph/0 up" poll 120 \
  cluster_target_up "serviceMonitor/$MON_NS/newsfeed-social-graph/0"
note "target up $((SECONDS - mon_t)) s after the stand-in was ready"
mon_up=$(date +%s)
# k6 from now on, so its 100s lie inside the report's minutes
sed -e "s|@K6_IMAGE@|${K6_REF_TAR%% *}|g" -e "s|@TESTID@|$MON_TESTID|g" ci/tests/cluster/monitoring-k6.yaml |
  kc -n "$MON_NS" apply -f - >> "$WORK/monitoring-standin.log" 2>&1 || true   # the k6 checks report it
check "honorLabels: the stand-in's own service label kept, no exported_service" own_service_label
: > "$WORK/monitoring-rules-ok"
check "every rule group of the chart's PrometheusRule loaded and evaluated healthy" poll 150 rules_healthy
mon_t=$SECONDS
check "recorded service:newsfeed_http_server_requests:per_minute of the stand-in = 600 (±15 %)" poll 180 \
  prom_between 'service:newsfeed_http_server_requests:per_minute{service="social-graph"}' 510 690
note "per-minute throughput as known $((SECONDS - mon_t)) s later"
check "recorded p50 = 10 ms, p95 = 37.5 ms (±15 %)" quantiles_known
check "k6 pod remote-wrote: k6_http_reqs_total{testid=$MON_TESTID}" poll 60 prom_value "sum(k6_http_reqs_total{testid=\"$MON_TESTID\"})"
check "recorded testid:k6_http_reqs:per_minute of the k6 pod = 300 (±20 %)" poll 120 \
  prom_between "max_over_time(testid:k6_http_reqs:per_minute{testid=\"$MON_TESTID\"}[5m])" 240 360
kcheck "the k6 Job completed" kc -n "$MON_NS" wait --for=condition=complete job/k6-probe --timeout=180s
# the report's first whole minute ends 90-150s after the target was up: its recorded value (rules run every
# 30s) then covers scraped samples only
mon_start=$((mon_up + 30))
while [ "$(date +%s)" -lt $((mon_up + 150)) ]; do sleep 5; done
mon_end=$(date +%s)
check "per-minute report from the in-cluster Prometheus (social-graph 600/min, p95 37.5 ms, k6 rows)" report_made
check "no rule evaluation failed" no_rule_error
kc -n monitoring top pods --containers 2>/dev/null | sed 's/^/# /' || true

kc delete namespace "$MON_NS" --wait --timeout=120s >/dev/null 2>&1 || true
mon_t=$SECONDS
check "ci/local/cluster/monitoring.sh down" bash ci/local/cluster/monitoring.sh down
note "monitoring down took $((SECONDS - mon_t)) s"
check "down: namespace, cluster RBAC and CRDs gone" monitoring_gone
note "monitoring section took $((SECONDS - mon_t0)) s"
