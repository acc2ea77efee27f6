# Section "postgresql" of the cluster suite, sourced by ci/tests/cluster.sh after the chart is installed
# (ci/local/cluster/install.sh: release newsfeed in $RELEASE_NS); uses the suite's check, kcheck, kc,
# cluster_prom, cluster_target_up, cluster_panels and RUN. PostgreSQL is operator-managed: the operator is ready (and
# `up` again changes nothing),
# CloudNativePG reports the chart's Cluster healthy on the Debian-built image, its data sits on a local-path volume
# in the node's run dir, and a participant created through social-graph's Service is a row of that database (psql in the
# instance's pod); the chart's PodMonitor (ci/local/cluster/monitoring/values.yaml turns it on) has the in-cluster
# Prometheus scrape CloudNativePG's exporter in the instance: target up, PostgreSQL up, the database's commits
# counted by the operator's default queries.
# shellcheck shell=bash

PG_NS=$RELEASE_NS
PG_CLUSTER=newsfeed-postgresql
pg_healthy() {
  local s; s=$(kc -n "$PG_NS" get "cluster.postgresql.cnpg.io/$PG_CLUSTER" \
    -o jsonpath='{.status.phase}|{.status.readyInstances}|{.spec.imageName}|{.status.currentPrimary}')
  echo "$s"
  [[ $s == "Cluster in healthy state|1|localhost/newsfeed-postgresql:"*"|$PG_CLUSTER-1" ]]
}
# the instance's claim is bound to a local-path volume whose directory holds the data directory
pg_volume() {
  local pv path
  pv=$(kc -n "$PG_NS" get pvc "$PG_CLUSTER-1" -o jsonpath='{.spec.volumeName}') && [ -n "$pv" ] || return 1
  [ "$(kc get pv "$pv" -o jsonpath='{.spec.storageClassName}')" = local-path ] || return 1
  path=$(kc get pv "$pv" -o jsonpath='{.spec.hostPath.path}{.spec.local.path}')
  echo "$pv at $path"
  [[ $path == "$RUN/volumes/"* ]] && [ "$(cat "$path/pgdata/PG_VERSION")" = 15 ]
}
pg_psql() { kc -n "$PG_NS" exec "$PG_CLUSTER-1" -c postgres -- psql -d newsfeed -tAc "$1"; }
pg_row_of_api() {
  local ip name=pg-check-$RANDOM$RANDOM id
  ip=$(kc -n "$PG_NS" get service newsfeed-social-graph -o jsonpath='{.spec.clusterIP}') || return 1
  id=$(curl -sSf --max-time 10 -H 'Content-Type: application/json' -d "{\"name\":\"$name\"}" "http://$ip:8080/participant" |
    sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  [ -n "$id" ] || return 1
  echo "participant $id"
  [ "$(pg_psql "select name from participant where id = $id")" = "$name" ]
}
check "ci/local/cluster/cnpg.sh status: the operator ready" bash ci/local/cluster/cnpg.sh status
check "ci/local/cluster/cnpg.sh up on a running operator: idempotent" bash ci/local/cluster/cnpg.sh up
kcheck "CloudNativePG: Cluster $PG_CLUSTER healthy, one instance of localhost/newsfeed-postgresql" pg_healthy
check "its data directory on a local-path volume under the node's run dir" pg_volume
check "a participant created through social-graph's Service is a row of the Cluster's database" pg_row_of_api
# the in-cluster Prometheus (ci/local/cluster/monitoring.sh) scrapes the instance through the chart's PodMonitor
pg_exported() {
  cluster_prom query "query=cnpg_collector_up{namespace=\"$PG_NS\", cluster=\"$PG_CLUSTER\"}" | jq -e '.data.result[0].value[1] == "1"' &&
    cluster_prom query "query=cnpg_pg_stat_database_xact_commit{namespace=\"$PG_NS\", datname=\"newsfeed\"}" |
      jq -e '(.data.result[0].value[1] | tonumber) > 0' &&
    cluster_prom query "query=cnpg_backends_total{namespace=\"$PG_NS\", datname=\"newsfeed\"}" | jq -e '.data.result | length > 0'
}
kcheck "the chart's PodMonitor: Prometheus scrapes CloudNativePG's exporter in the instance (target up)" poll 90 \
  cluster_target_up "podMonitor/$PG_NS/$PG_CLUSTER/0" "$PG_CLUSTER-1"
check "CloudNativePG's series: PostgreSQL up, the newsfeed database's commits and backends" poll 60 pg_exported
check "the stores dashboard's PostgreSQL panels have data in the in-cluster Prometheus" cluster_panels '^PostgreSQL'
