# Section "kafka-lag" of the cluster suite, sourced by ci/tests/cluster.sh after the chart is installed
# (ci/local/cluster/install.sh: release newsfeed in $RELEASE_NS, values/local-node.yaml with
# monitoring.kafkaLagExporter on, its ServiceMonitor from ci/local/cluster/monitoring/values.yaml); uses the suite's
# check, kcheck, kc, poll, cluster_prom, cluster_target_up and cluster_panels. The chart's Kafka lag exporter runs
# from its local image, signs in to the node stack's Kafka as its own SASL user (Describe on every topic and group, given by the topic Job) through the
# chart's NetworkPolicy, and the in-cluster Prometheus scrapes it: both consumer groups with members and committed
# offsets (the k6 runs before posted), their lag, and the stores dashboard's two panels that read them.
# shellcheck shell=bash

LAG_NS=$RELEASE_NS
LAG_NAME=newsfeed-kafka-lag-exporter
lag_pod_ready() {
  kc -n "$LAG_NS" rollout status "deploy/$LAG_NAME" --timeout=120s &&
    kc -n "$LAG_NS" get pods -l app.kubernetes.io/component=kafka-lag-exporter \
      -o jsonpath='{range .items[*]}{.spec.containers[0].image} {.status.containerStatuses[0].ready}{"\n"}{end}' |
    tee /dev/stderr | grep -x "localhost/newsfeed-kafka-lag-exporter:[^ ]* true" > /dev/null
}
# lag_group GROUP: members > 0, a committed offset > 0 and a lag series on the outbound topic
lag_group() {
  local sel="consumergroup=\"$1\", namespace=\"$LAG_NS\""
  cluster_prom query "query=kafka_consumergroup_members{$sel}" | jq -e '(.data.result[0].value[1] | tonumber) > 0' &&
    cluster_prom query "query=kafka_consumergroup_current_offset_sum{$sel, topic=\"outbound-posted\"}" |
      jq -e '(.data.result[0].value[1] | tonumber) > 0' &&
    cluster_prom query "query=kafka_consumergroup_lag_sum{$sel, topic=\"outbound-posted\"}" | jq -e '.data.result | length == 1'
}
kcheck "the chart's Kafka lag exporter: one ready pod of localhost/newsfeed-kafka-lag-exporter" lag_pod_ready
kcheck "its ServiceMonitor: the in-cluster Prometheus scrapes it (target up)" poll 90 \
  cluster_target_up "serviceMonitor/$LAG_NS/$LAG_NAME/0"
check "kafka_consumergroup_* of group newsfeed-inbound: members, committed offsets, lag" poll 60 lag_group newsfeed-inbound
check "kafka_consumergroup_* of group newsfeed-search: members, committed offsets, lag" poll 60 lag_group newsfeed-search
check "the stores dashboard's consumer-group panels have data in the in-cluster Prometheus" cluster_panels '^Kafka consumer-group'
