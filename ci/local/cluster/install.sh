#!/usr/bin/env bash
# The umbrella chart installed for real on the local node (ci/local/cluster.sh up first) with values/local-node.yaml:
#   1. images: the jars (when missing or older than services/' sources) and ci/local/cluster/images.sh build the OCI
#      archives, ci/local/cluster.sh import loads them into the node
#   2. stores: an earlier release uninstalled and the data of its stack removed, then ci/local/stack.sh up with
#      authentication (NEWSFEED_STACK_AUTH) bound to the node IP (NEWSFEED_STACK_HOST), in its own run dir $NEWSFEED_RUN/node-stack with port offset
#      NEWSFEED_NODE_STACK_OFFSET (default 1375); the CloudNativePG operator (ci/local/cluster/cnpg.sh up), which runs
#      the chart's PostgreSQL Cluster
#   3. helm install --wait --wait-for-jobs of the offline chart copy (ci/local/cluster/offline-chart.sh): every pod
#      Ready, the init Jobs complete (each service's store users made as the stack's admins, whose Secrets come from
#      its stack.env); the stack's ports and the PostgreSQL image come in a generated values file
#   4. proofs: the init Jobs' logs, `helm test`, the API through the Services (ci/local/cluster/api-check.sh in a Job),
#      k6 smoke and social Jobs created from their CronJobs, each must complete
# Prints an `ok - STEP (N s)` line per step, then (as `# ` lines, also in $NEWSFEED_RUN/node-install/timings.txt)
# the durations and every service pod's start-to-Ready time; a failed step prints `FAIL - STEP` and the namespace's
# pods, events, descriptions and logs (stderr), and stops.
# Usage: ci/local/cluster/install.sh [up]   everything above (an existing release and its stores' data are removed first)
#        ci/local/cluster/install.sh down   uninstall the release, delete its namespace, the operator, stop the node stack
# Environment: NEWSFEED_RUN (this script's work dir and the stack's, below it), NEWSFEED_PORT_OFFSET of the node (as
# for ci/local/cluster.sh), NEWSFEED_CLUSTER_RUN (the node's run dir when another NEWSFEED_RUN started it),
# NEWSFEED_NODE_NAMESPACE (default newsfeed), NEWSFEED_NODE_STACK_OFFSET (default 1375: no port in common with the
# other run dirs' offsets, e.g. the shared stack of ci/tests/run.sh at 300), NEWSFEED_NODE_VALUES (more values files
# over values/local-node.yaml, space-separated, e.g. ci/local/cluster/monitoring/values.yaml).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$ROOT"
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
PATH=${NEWSFEED_BIN:-$CACHE/bin}:$PATH
RUN=${NEWSFEED_RUN:-$ROOT/.run}
WORK=$RUN/node-install
NS=${NEWSFEED_NODE_NAMESPACE:-newsfeed}
RELEASE=newsfeed
STACK_RUN=$RUN/node-stack
STACK_OFFSET=${NEWSFEED_NODE_STACK_OFFSET:-1375}
CLUSTER_RUN=${NEWSFEED_CLUSTER_RUN:-$RUN}
SERVICES=(social-graph outbound inbound search edge)
log() { echo "[install $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
kc() { kubectl -n "$NS" "$@"; }
cluster() { NEWSFEED_RUN=$CLUSTER_RUN bash ci/local/cluster.sh "$@"; }

# the node stack's ci/local/stack.sh, whatever the caller's NEWSFEED_RUN/offset; PostgreSQL needs to reach the run dir
node_stack() {
  mkdir -p "$STACK_RUN"; chmod 755 "$RUN" "$STACK_RUN"
  NEWSFEED_RUN=$STACK_RUN NEWSFEED_PORT_OFFSET=$STACK_OFFSET NEWSFEED_STACK_HOST=$NODE_IP \
    NEWSFEED_STACK_CLIENTS=$POD_CIDR NEWSFEED_STACK_AUTH=true bash ci/local/stack.sh "$@"
}

# everything that could say why: pods, events, the descriptions of pods not Ready, every container's log tail
diagnose() {
  log "diagnosis of namespace $NS"
  kc get pods -o wide || true
  kc get events --sort-by=.lastTimestamp | tail -n 40 || true
  local p
  for p in $(kc get pods -o jsonpath='{range .items[?(@.status.phase!="Succeeded")]}{.metadata.name}{"\n"}{end}'); do
    echo "--- describe pod/$p"; kc describe "pod/$p" | sed -n '/^Containers:/,$p' | tail -n 40
    echo "--- logs pod/$p"; kc logs "pod/$p" --all-containers --tail=40 2>&1 || true
  done
}
declare -A STEP_SECONDS=()
STEPS=()
# step NAME CMD...: a timed step, reported as an `ok - `/`FAIL - ` line on stdout (the cluster suite counts them);
# its own output goes to stderr; a failure diagnoses the namespace and stops. The step runs in a subshell with
# errexit on (in an `if` bash would ignore errexit inside it), so it shares nothing but files and the environment.
step() {
  local name=$1 t=$SECONDS rc=0; shift
  log "$name"
  set +e
  (set -e; "$@") >&2
  rc=$?
  set -e
  if [ "$rc" -eq 0 ]; then
    STEP_SECONDS[$name]=$((SECONDS - t)); STEPS+=("$name")
    echo "ok - $name ($((SECONDS - t)) s)"
  else
    echo "FAIL - $name"
    diagnose >&2
    die "$name failed after $((SECONDS - t)) s"
  fi
}

# every service jar exists and is newer than every source and pom of services/ (a stale jar would put old code
# into the images)
jars_current() {
  local svc jar
  for svc in "${SERVICES[@]}" kafka-lag-exporter; do
    jar=services/$svc/target/$svc.jar
    [ -f "$jar" ] || return 1
    [ -z "$(find services -name target -prune -o -type f \( -path '*/src/main/*' -o -name pom.xml \) \
      -newer "$jar" -print -quit)" ] || return 1
  done
}

images() {
  local built refs=() archives=() ref archive
  bash ci/local/tools.sh go >/dev/null   # helm and the k6 of the k6 image (seconds when warm)
  jars_current || mvn -q -f services/pom.xml package -DskipTests
  built=$(bash ci/local/cluster/images.sh build)
  while read -r ref archive; do refs+=("$ref"); archives+=("$archive"); done <<< "$built"
  cluster import "${archives[@]}"
  log "imported ${refs[*]}"
}

stack_env() {
  # shellcheck source=/dev/null
  . "$STACK_RUN/stack.env"
}

# A new install starts from empty stores: the operator's PostgreSQL volume goes with the release, so an earlier
# install's Redis cache, feeds, topic and index in the node stack would name participants its new database does not
# have (same ids, other people). The earlier release goes first, then the stack's data.
stack_up() {
  if helm status "$RELEASE" -n "$NS" >/dev/null 2>&1; then helm uninstall "$RELEASE" -n "$NS" --wait >&2; fi
  if [ -d "$STACK_RUN/stack" ]; then
    log "emptying the node stack of an earlier install"
    node_stack down >&2
    rm -rf "$STACK_RUN/stack"
  fi
  node_stack up >&2
  stack_env
  [ "$PG_HOST" = "$NODE_IP" ] || die "the node stack is bound to $PG_HOST, not $NODE_IP"
}

cnpg_up() { bash ci/local/tools.sh cnpg >/dev/null; NEWSFEED_RUN=$CLUSTER_RUN bash ci/local/cluster/cnpg.sh up; }

# port URL: the port of host:port or scheme://host:port[/path]
port() { local p=${1##*:}; echo "${p%%/*}"; }

# the stack's real ports and the PostgreSQL image just built over values/local-node.yaml
stack_values() {
  local f=$WORK/stack-values.yaml
  stack_env
  cat > "$f" <<EOF
# generated by ci/local/cluster/install.sh from $STACK_RUN/stack.env and ci/local/cluster/images.sh
postgresql:
  cluster:
    imageName: $(bash ci/local/cluster/images.sh refs postgresql | awk '{print $2}')
externalEndpoints:
  - {name: stack-redis, addresses: [$NODE_IP], ports: [{name: redis, port: 6379, targetPort: $(port "$REDIS_URL")}]}
  - {name: stack-kafka, addresses: [$NODE_IP], ports: [{name: kafka, port: 9092, targetPort: $(port "$KAFKA_BOOTSTRAP_SERVERS")}]}
  - {name: stack-cassandra, addresses: [$NODE_IP], ports: [{name: cql, port: 9042, targetPort: $(port "$CASSANDRA_CONTACT_POINTS")}]}
  - {name: stack-solr, addresses: [$NODE_IP], ports: [{name: http, port: 8983, targetPort: $(port "${SOLR_URL%/solr}")}]}
EOF
}

# secret_manifest NAME KEY=VALUE...: a Secret of the release's namespace as YAML (values base64-encoded; for stdin,
# never a command line)
secret_manifest() {
  local name=$1 kv; shift
  printf 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: %s\ntype: Opaque\ndata:\n' "$name" "$NS"
  for kv in "$@"; do printf '  %s: %s\n' "${kv%%=*}" "$(printf '%s' "${kv#*=}" | base64 -w0)"; done
}

# The stack's admins, as the Secrets values/local-node.yaml names for its external stores: the schema Jobs log in
# with them to give every service its own user
admin_secrets() {
  stack_env
  { secret_manifest "$RELEASE-kafka-auth" "client-passwords=$KAFKA_SASL_PASSWORD"
    echo ---
    secret_manifest "$RELEASE-cassandra-superuser" "username=$CASSANDRA_USERNAME" "password=$CASSANDRA_PASSWORD"
    echo ---
    secret_manifest "$RELEASE-solr-admin" "username=$SOLR_ADMIN_USERNAME" "password=$SOLR_ADMIN_PASSWORD"
  } | kubectl apply -f - >&2
}

helm_install() {
  local chart extra=() f; chart=$(bash ci/local/cluster/offline-chart.sh "$WORK/chart")
  for f in ${NEWSFEED_NODE_VALUES:-}; do extra+=(-f "$f"); done
  stack_values
  kubectl get namespace "$NS" >/dev/null 2>&1 || kubectl create namespace "$NS" >&2
  admin_secrets
  HELM_CONFIG_HOME=$WORK/chart/.helm/config HELM_CACHE_HOME=$WORK/chart/.helm/cache HELM_DATA_HOME=$WORK/chart/.helm/data \
    helm install "$RELEASE" "$chart" -n "$NS" -f values/local-node.yaml "${extra[@]}" -f "$WORK/stack-values.yaml" \
    --wait --wait-for-jobs --timeout 10m >&2
}

# every init Job says what it created (their last lines)
schema_jobs() {
  local job
  for job in $(kc get jobs -l newsfeed.io/schema-job=true -o name); do
    [ "$(kc get "$job" -o jsonpath='{.status.succeeded}')" = 1 ] || { echo "$job did not succeed"; return 1; }
    echo "--- $job"; kc logs "$job" --tail=3
  done
}

# (no --logs: the chart's test pods are deleted once they succeed, before helm could read their logs)
helm_test() { helm test "$RELEASE" -n "$NS" --timeout 5m | sed -n '/^TEST SUITE/,/^NOTES/p'; }

# job_done NAME SECONDS: until the Job completes (0) or fails (1); then its log tail
job_done() {
  local name=$1 deadline=$((SECONDS + $2)) s f
  while :; do
    s=$(kc get "job/$name" -o jsonpath='{.status.succeeded}'); f=$(kc get "job/$name" -o jsonpath='{.status.failed}')
    if [ "${s:-0}" -ge 1 ]; then kc logs "job/$name" --tail=25; return 0; fi
    if [ "${f:-0}" -ge 1 ] || [ $SECONDS -ge $deadline ]; then kc logs "job/$name" --tail=60 || true; return 1; fi
    sleep 3
  done
}

api_check() {
  local name svc env=""
  name=api-check-$(date +%s)
  kc create configmap "$name" --from-file=api-check.sh=ci/local/cluster/api-check.sh >/dev/null
  for svc in "${SERVICES[@]}"; do
    env+="            - {name: $(echo "$svc" | tr a-z- A-Z_)_URL, value: \"http://$RELEASE-$svc:8080\"}"$'\n'
  done
  kc apply -f - >/dev/null <<EOF
apiVersion: batch/v1
kind: Job
metadata:
  name: $name
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      securityContext: {runAsNonRoot: true, runAsUser: 100, runAsGroup: 100, seccompProfile: {type: RuntimeDefault}}
      containers:
        - name: api
          image: localhost/newsfeed-curl:$(bash ci/release/app-version.sh)
          imagePullPolicy: Never
          command: [sh, /check/api-check.sh]
          env:
$env          securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
          resources: {requests: {cpu: 10m, memory: 16Mi}, limits: {memory: 64Mi}}
          volumeMounts: [{name: check, mountPath: /check}]
      volumes: [{name: check, configMap: {name: $name}}]
EOF
  job_done "$name" 240
}

k6_run() {
  local scenario=$1 name; name=k6-$1-$(date +%s)
  kc create job --from="cronjob/$RELEASE-k6-$scenario" "$name" >/dev/null
  job_done "$name" "$2"
}

# pod start (kubelet accepted it) and container start to Ready, per service pod
ready_times() {
  local svc
  printf '%-13s %-14s %s\n' service pod-to-Ready container-to-Ready
  for svc in "${SERVICES[@]}"; do
    kc get pods -l "app.kubernetes.io/name=$svc,app.kubernetes.io/instance=$RELEASE" -o json | jq -r --arg s "$svc" '
      .items[0].status as $st
      | ($st.conditions[] | select(.type == "Ready") | .lastTransitionTime | fromdate) as $ready
      | [$s, (($ready - ($st.startTime | fromdate)) | tostring) + " s",
         (($ready - ($st.containerStatuses[0].state.running.startedAt | fromdate)) | tostring) + " s"]
      | @tsv' | awk -F'\t' '{printf "%-13s %-14s %s\n", $1, $2, $3}'
  done
}

up() {
  local total=$SECONDS
  cluster status >/dev/null 2>&1 || die "the node is not running: bash ci/local/cluster.sh up"
  eval "$(cluster env)"
  mkdir -p "$WORK"
  step "images built and imported" images
  step "empty stack up on $NODE_IP (run dir $STACK_RUN, port offset $STACK_OFFSET)" stack_up
  step "CloudNativePG operator up (ci/local/cluster/cnpg.sh)" cnpg_up
  step "helm install --wait --wait-for-jobs (values/local-node.yaml)" helm_install
  step "init Jobs completed" schema_jobs
  step "helm test" helm_test
  step "API through the Services (api-check Job)" api_check
  step "k6 smoke Job from cronjob/$RELEASE-k6-smoke" k6_run smoke 300
  step "k6 social Job (PROFILE=ci) from cronjob/$RELEASE-k6-social" k6_run social 420
  {
    echo "ci/local/cluster/install.sh $(date -u +%FT%TZ), $(nproc) cores"
    local s; for s in "${STEPS[@]}"; do printf '%5s s  %s\n' "${STEP_SECONDS[$s]}" "$s"; done
    printf '%5s s  total\n' "$((SECONDS - total))"
    ready_times
  } > "$WORK/timings.txt"
  sed 's/^/# /' "$WORK/timings.txt"
}

down() {
  eval "$(cluster env 2>/dev/null)" || true
  if kubectl get namespace "$NS" >/dev/null 2>&1; then
    helm uninstall "$RELEASE" -n "$NS" --wait >&2 || true
    kubectl delete namespace "$NS" --wait=true --timeout=120s >&2 || true
  fi
  if kubectl get namespace cnpg-system >/dev/null 2>&1; then NEWSFEED_RUN=$CLUSTER_RUN bash ci/local/cluster/cnpg.sh down || true; fi
  if [ -d "$STACK_RUN/stack" ]; then
    NEWSFEED_RUN=$STACK_RUN NEWSFEED_PORT_OFFSET=$STACK_OFFSET bash ci/local/stack.sh down >&2
  fi
}

case ${1:-up} in
  up) up ;;
  down) down ;;
  *) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
