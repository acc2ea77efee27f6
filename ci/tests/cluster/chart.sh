# Section "chart" of the cluster suite, sourced by ci/tests/cluster.sh while the node is up (it uses the suite's
# check, note, fail_now, passed, failed and WORK): the umbrella chart for real with values/local-node.yaml, by
# ci/local/cluster/install.sh — images built and imported, the local stack bound to the node IP, helm install --wait
# (every pod Ready, the schema Jobs complete), helm test, the API from a pod through the Services, k6 smoke and
# social Jobs. Each of its steps is one check; its timings and each service pod's start-to-Ready are notes.
# On the release: the k6 graphql Job, the postgresql section (ci/tests/cluster/postgresql.sh), the ingress one (ingress.sh) and the
# scaling one (scaling.sh). Then install.sh down: release, CloudNativePG and its volume gone, no process of the
# node stack left.
# shellcheck shell=bash

chart_log=$WORK/logs/chart-install.log
mkdir -p "$WORK/logs"
check "bash ci/local/tools.sh cnpg (the CloudNativePG operator's image and release manifest, cached)" bash ci/local/tools.sh cnpg
chart_steps=0
while IFS= read -r line; do
  case $line in
    "ok - "*) passed=$((passed + 1)); chart_steps=$((chart_steps + 1)); echo "$line" ;;
    "FAIL - "*) failed=$((failed + 1)); echo "$line"; tail -n 80 "$chart_log" | sed 's/^/    /' ;;
    "# "*) echo "$line" ;;
  esac
done < <(bash ci/local/cluster/install.sh 2> "$chart_log")
# nine steps: a missing ok line is a step that never ran (the script stopped before it)
[ "$chart_steps" -eq 9 ] || fail_now "ci/local/cluster/install.sh ran all 9 steps ($chart_steps ok; log $chart_log)"

# the classic client's GraphQL mode as k6 runs it in the cluster: the CronJob's script, its lib/ imports and
# EDGE_URL, through edge to the four Services (PROFILE=ci of values/local-node.yaml, 40 s at 10 it/s); a failed
# threshold fails the Job (backoffLimit 0)
chart_k6_graphql() {
  local name deadline=$((SECONDS + 300)) s f
  name=k6-graphql-$(date +%s)
  kc -n "${NEWSFEED_NODE_NAMESPACE:-newsfeed}" create job --from=cronjob/newsfeed-k6-graphql "$name" || return 1
  while :; do
    s=$(kc -n "${NEWSFEED_NODE_NAMESPACE:-newsfeed}" get "job/$name" -o jsonpath='{.status.succeeded}')
    f=$(kc -n "${NEWSFEED_NODE_NAMESPACE:-newsfeed}" get "job/$name" -o jsonpath='{.status.failed}')
    if [ "${s:-0}" -ge 1 ] || [ "${f:-0}" -ge 1 ] || [ $SECONDS -ge $deadline ]; then break; fi
    sleep 3
  done
  kc -n "${NEWSFEED_NODE_NAMESPACE:-newsfeed}" logs "job/$name" --tail=40
  [ "${s:-0}" -ge 1 ]
}

# docs/reliability.md's command inside a service's pod (its environment, a second small JVM): the init Job created
# the group's dead-letter topic, and nothing was dead-lettered by the runs so far
chart_dead_letters() {
  local out
  out=$(kc -n "${NEWSFEED_NODE_NAMESPACE:-newsfeed}" exec "deploy/newsfeed-$1" -- \
    java -Xmx64m -jar /app/service.jar dead-letters list 2>&1) || { echo "$out"; return 1; }
  echo "$out" | tail -n 3
  grep -qx "0 dead-lettered records in outbound-posted.newsfeed-$1.dead-letter" <<< "$out"
}

# on the installed release, before its down: k6's GraphQL run, its PostgreSQL, through Traefik, then the scaling
# runner and the HPA
if [ "$chart_steps" -eq 9 ]; then
  t=$SECONDS
  kcheck "k6 graphql Job from cronjob/newsfeed-k6-graphql (the classic GraphQL mode through edge) succeeds" \
    chart_k6_graphql
  note "the k6 graphql Job took $((SECONDS - t)) s"
  kcheck "kubectl exec deploy/newsfeed-search -- java -Xmx64m -jar /app/service.jar dead-letters list: empty" \
    chart_dead_letters search
  kcheck "kubectl exec deploy/newsfeed-inbound -- java -Xmx64m -jar /app/service.jar dead-letters list: empty" \
    chart_dead_letters inbound
  . ci/tests/cluster/postgresql.sh
  . ci/tests/cluster/ingress.sh
  . ci/tests/cluster/scaling.sh
fi
chart_stack_gone() { ! pgrep -f "[${WORK:0:1}]${WORK:1}/run/node-stack/"; }
# the operator's namespace and CRDs gone; the PostgreSQL volume released and its directory removed by local-path
chart_cnpg_gone() {
  ! kc get namespace cnpg-system 2>/dev/null && ! kc get crd clusters.postgresql.cnpg.io 2>/dev/null &&
    poll 60 chart_volumes_gone
}
chart_volumes_gone() { [ -z "$(kc get pv -o name)" ] && [ -z "$(ls -A "$RUN/volumes")" ]; }
check "ci/local/cluster/install.sh down: release uninstalled, namespace and node stack gone" bash ci/local/cluster/install.sh down
check "no process of the node stack left" chart_stack_gone
check "CloudNativePG gone, the PostgreSQL volume deleted" chart_cnpg_gone
