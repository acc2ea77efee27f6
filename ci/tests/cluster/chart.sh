# Section "chart" of the cluster suite, sourced by ci/tests/cluster.sh while the node is up (it uses the suite's
# check, note, fail_now, passed, failed and WORK): the umbrella chart for real with values/local-node.yaml, by
# ci/cluster/install.sh — images built and imported, the local stack bound to the node IP, helm install --wait
# (every pod Ready, the schema Jobs complete), helm test, the API from a pod through the Services, k6 smoke and
# social Jobs. Each of its steps is one check; its timings and each service pod's start-to-Ready are notes.
# On the release: the postgresql section (ci/tests/cluster/postgresql.sh), the ingress one (ingress.sh) and the
# scaling one (scaling.sh). Then install.sh down: release, CloudNativePG and its volume gone, no process of the
# node stack left.
# shellcheck shell=bash

chart_log=$WORK/logs/chart-install.log
mkdir -p "$WORK/logs"
check "bash ci/tools.sh cnpg (the CloudNativePG operator's image and release manifest, cached)" bash ci/tools.sh cnpg
chart_steps=0
while IFS= read -r line; do
  case $line in
    "ok - "*) passed=$((passed + 1)); chart_steps=$((chart_steps + 1)); echo "$line" ;;
    "FAIL - "*) failed=$((failed + 1)); echo "$line"; tail -n 80 "$chart_log" | sed 's/^/    /' ;;
    "# "*) echo "$line" ;;
  esac
done < <(bash ci/cluster/install.sh 2> "$chart_log")
# nine steps: a missing ok line is a step that never ran (the script stopped before it)
[ "$chart_steps" -eq 9 ] || fail_now "ci/cluster/install.sh ran all 9 steps ($chart_steps ok; log $chart_log)"

# on the installed release, before its down: its PostgreSQL, through Traefik, then the scaling runner and the HPA
if [ "$chart_steps" -eq 9 ]; then
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
check "ci/cluster/install.sh down: release uninstalled, namespace and node stack gone" bash ci/cluster/install.sh down
check "no process of the node stack left" chart_stack_gone
check "CloudNativePG gone, the PostgreSQL volume deleted" chart_cnpg_gone
