# Section "chart" of the cluster suite, sourced by ci/tests/cluster.sh once the suite's own node is down (it uses the
# suite's check, kcheck, note, poll, kc, fail_now, machine_state, passed, failed, WORK, DEMO_RUN and demo_up).
# The README's `KEEP_RUNNING=1 make cluster-demo`, short, as a user runs it: its own node, the Prometheus Operator,
# Traefik, and the umbrella chart installed for real with values/local-node.yaml plus both layers by
# ci/local/cluster/install.sh (images built and imported, the local stack bound to the node IP, helm install --wait,
# helm test, the API from a pod through the Services, k6 smoke and social Jobs: each of its steps one check, its
# timings and each service pod's start-to-Ready notes), then a k6 social Job and the per-minute report from the
# in-cluster Prometheus. On the release it leaves running: the set-up of the monitoring section (ci/tests/cluster/
# monitoring.sh: the demo's Prometheus, a stand-in with known rates, a k6 pod remote-writing) and of the solr section
# (solr.sh), the k6 graphql Job, the dead-letter command in two service pods, the postgresql section (postgresql.sh),
# the kafka-lag one (kafka-lag.sh), the ingress one (ingress.sh), the scaling one (scaling.sh), the monitoring and
# solr sections' checks, then the monitoring stack down (its namespace and RBAC gone; its CRDs kept while the
# release uses them, and removed by a second down after install.sh down). Then install.sh down (release,
# CloudNativePG and its volume gone, no process of the node stack left) and the stop command the demo printed, after
# which the machine is as before. (The demo without KEEP_RUNNING stops the same parts in the same order: install.sh,
# ingress.sh and monitoring.sh down, the node down.)
# shellcheck shell=bash

check "bash ci/local/tools.sh cnpg (the CloudNativePG operator's image and release manifest, cached)" bash ci/local/tools.sh cnpg
# from here on the node, its stack and the release are the demo's
export NEWSFEED_RUN=$DEMO_RUN
RUN=$NEWSFEED_RUN/cluster
export KUBECONFIG=$RUN/control-plane/kubeconfig
# the release's namespace (install.sh's default), for this file and the sections it sources
RELEASE_NS=${NEWSFEED_NODE_NAMESPACE:-newsfeed}
chart_demo_log=$WORK/cluster-demo.log
# its standard output holds install.sh's step lines (the API check's own lines go to standard error, shown after it)
chart_demo() {
  local rc=0
  env KEEP_RUNNING=1 DEMO_DURATION=20s DEMO_RATE=5 make -s cluster-demo 2> "$WORK/cluster-demo.stderr" |
    tee "$chart_demo_log" || rc=$?
  cat "$WORK/cluster-demo.stderr"
  return "$rc"
}
# shellcheck disable=SC2034  # read by the suite's cleanup, which stops the demo when a check stopped short
demo_up=true
t=$SECONDS
check "KEEP_RUNNING=1 make cluster-demo (20 s of k6 at 5 it/s)" chart_demo
note "make cluster-demo took $((SECONDS - t)) s"
# install.sh's own steps, as it printed them inside the demo
chart_steps=0
while IFS= read -r line; do
  case $line in
    "ok - "*) passed=$((passed + 1)); chart_steps=$((chart_steps + 1)); echo "$line" ;;
    "FAIL - "*) failed=$((failed + 1)); echo "$line"; tail -n 80 "$chart_demo_log" | sed 's/^/    /' ;;
    "# "*) echo "$line" ;;
  esac
done < <(grep -E '^(ok - |FAIL - |# )' "$chart_demo_log")
# nine steps: a missing ok line is a step that never ran (the script stopped before it)
[ "$chart_steps" -eq 9 ] || fail_now "ci/local/cluster/install.sh ran all 9 steps in the demo ($chart_steps ok; log $chart_demo_log)"
chart_stop=$(sed -n 's/.*still running; stop everything with: //p' "$chart_demo_log" | tail -n 1)

# the report has the k6 run's rows and the services' recorded rows (read from the in-cluster Prometheus)
demo_report() {
  local md; md=$(ls "$DEMO_RUN"/reports/cluster-demo-*/per-minute.md) || return 1
  cat "$md"; ls "$(dirname "$md")"/*.png >/dev/null && grep -q 'POST /participant' "$md" && grep -qi 'k6' "$md"
}
check "its per-minute report (tables, PNG charts) has the services' and k6's rows" demo_report
demo_html() {  # the page beside that Markdown: self-contained, with the same rows and every PNG inlined
  local md; md=$(ls "$DEMO_RUN"/reports/cluster-demo-*/per-minute.md) || return 1
  python3 ci/tests/observability/check_html_report.py "$(dirname "$md")"
}
check "its per-minute.html is self-contained and holds the Markdown's rows" demo_html
# what it prints last: the API, Prometheus, KUBECONFIG and the one command that stops it all
demo_printed() {
  grep -E '^\[cluster-demo [0-9:]+\] API: +http://[^ ]+ with Host: ' "$chart_demo_log" &&
    grep -E '^\[cluster-demo [0-9:]+\] Prometheus: +http://' "$chart_demo_log" &&
    grep -F "kubectl:    export KUBECONFIG=$KUBECONFIG" "$chart_demo_log" &&
    [ "$chart_stop" = "NEWSFEED_RUN=$DEMO_RUN NEWSFEED_PORT_OFFSET=$NEWSFEED_PORT_OFFSET make clean" ]
}
check "it prints the API, Prometheus, KUBECONFIG and its stop command (make clean with its run dir)" demo_printed

# the classic client's GraphQL mode as k6 runs it in the cluster: the CronJob's script, its lib/ imports and
# EDGE_URL, through edge to the four Services (PROFILE=ci of values/local-node.yaml, 40 s at 10 it/s); a failed
# threshold fails the Job (backoffLimit 0)
chart_k6_graphql() {
  local name deadline=$((SECONDS + 300)) s f
  name=k6-graphql-$(date +%s)
  kc -n "$RELEASE_NS" create job --from=cronjob/newsfeed-k6-graphql "$name" || return 1
  while :; do
    s=$(kc -n "$RELEASE_NS" get "job/$name" -o jsonpath='{.status.succeeded}')
    f=$(kc -n "$RELEASE_NS" get "job/$name" -o jsonpath='{.status.failed}')
    if [ "${s:-0}" -ge 1 ] || [ "${f:-0}" -ge 1 ] || [ $SECONDS -ge $deadline ]; then break; fi
    sleep 3
  done
  kc -n "$RELEASE_NS" logs "job/$name" --tail=40
  [ "${s:-0}" -ge 1 ]
}

# docs/reliability.md's command inside a service's pod (its environment, a second small JVM): the init Job created
# the group's dead-letter topic, and nothing was dead-lettered by the runs so far
chart_dead_letters() {
  local out
  out=$(kc -n "$RELEASE_NS" exec "deploy/newsfeed-$1" -- \
    java -Xmx64m -jar /app/service.jar dead-letters list 2>&1) || { echo "$out"; return 1; }
  echo "$out" | tail -n 3
  grep -qx "0 dead-lettered records in outbound-posted.newsfeed-$1.dead-letter" <<< "$out"
}

# every service JVM of the release maps its image's class-data archive (services/class-data-archive.sh, named by
# the ENTRYPOINT): a JVM that cannot use it starts without a word, loading and verifying every class itself
chart_class_archives() {
  local pid n=0 mapped=0
  for pid in $(pgrep -f -- '-jar /app/service\.jar$'); do
    n=$((n + 1))
    if grep -F /app/service.jsa "/proc/$pid/maps" > /dev/null; then mapped=$((mapped + 1))
    else echo "pid $pid does not map /app/service.jsa: $(tr '\0' ' ' < "/proc/$pid/cmdline")"; fi
  done
  echo "$mapped of $n service JVMs map /app/service.jsa"
  [ "$n" -ge 5 ] && [ "$mapped" -eq "$n" ]
}

# on the release the demo left running: Solr beside it, k6's GraphQL run, its PostgreSQL, through Traefik, the
# scaling runner and the HPA, then Solr's scrape
if [ "$chart_steps" -eq 9 ]; then
  check "every service JVM of the release maps its class-data archive /app/service.jsa" chart_class_archives
  # the stand-in's ServiceMonitor and Solr's PodMonitor first: Prometheus' reloader picks them up within 3 minutes,
  # so their checks come last
  . ci/tests/cluster/monitoring.sh
  . ci/tests/cluster/solr.sh
  t=$SECONDS
  kcheck "k6 graphql Job from cronjob/newsfeed-k6-graphql (the classic GraphQL mode through edge) succeeds" \
    chart_k6_graphql
  note "the k6 graphql Job took $((SECONDS - t)) s"
  kcheck "kubectl exec deploy/newsfeed-search -- java -Xmx64m -jar /app/service.jar dead-letters list: empty" \
    chart_dead_letters search
  kcheck "kubectl exec deploy/newsfeed-inbound -- java -Xmx64m -jar /app/service.jar dead-letters list: empty" \
    chart_dead_letters inbound
  . ci/tests/cluster/postgresql.sh
  . ci/tests/cluster/kafka-lag.sh
  . ci/tests/cluster/ingress.sh
  . ci/tests/cluster/scaling.sh
  mon_checked
  solr_scraped
  t=$SECONDS
  check "ci/local/cluster/monitoring.sh down" bash ci/local/cluster/monitoring.sh down
  note "monitoring down took $((SECONDS - t)) s"
  check "down: monitoring namespace and cluster RBAC gone, CRDs kept while the release's monitors use them" mon_down_in_use
fi
chart_stack_gone() { ! pgrep -f "[${NEWSFEED_RUN:0:1}]${NEWSFEED_RUN:1}/node-stack/"; }
# the operator's namespace and CRDs gone; the PostgreSQL volume released and its directory removed by local-path
chart_cnpg_gone() {
  ! kc get namespace cnpg-system 2>/dev/null && ! kc get crd clusters.postgresql.cnpg.io 2>/dev/null &&
    poll 60 chart_volumes_gone
}
chart_volumes_gone() { [ -z "$(kc get pv -o name)" ] && [ -z "$(ls -A "$RUN/volumes")" ]; }
check "ci/local/cluster/install.sh down: release uninstalled, namespace and node stack gone" bash ci/local/cluster/install.sh down
check "no process of the node stack left" chart_stack_gone
check "CloudNativePG gone, the PostgreSQL volume deleted" chart_cnpg_gone
# (with the monitoring section's mon_gone, sourced when the demo ran all its steps)
chart_monitoring_gone() { bash ci/local/cluster/monitoring.sh down && mon_gone; }
[ "$chart_steps" -ne 9 ] ||
  check "ci/local/cluster/monitoring.sh down once the release is gone: its CRDs removed too" chart_monitoring_gone
# the stop command as printed, the way a user runs it: the node and everything left of the demo
chart_stopped() { [ -n "$chart_stop" ] && bash -c "$chart_stop"; }
check "the demo's stop command: make clean with its run dir" chart_stopped
# shellcheck disable=SC2034
[ "$LAST" != ok ] || demo_up=false
machine_state > "$WORK/machine.after3"
check "machine as before after KEEP_RUNNING=1 make cluster-demo and its stop command" \
  diff "$WORK/machine.before" "$WORK/machine.after3"
