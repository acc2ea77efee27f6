#!/usr/bin/env bash
# Suite "charts": the Helm charts against a REAL Kubernetes API server.
#  offline: dependency build, `helm lint --strict` (per values profile too), a security policy over the
#           rendered manifests of every profile (ci/tests/charts/manifests.py security), the Redis wiring of
#           the services that cache (manifests.py redis-clients), kubeconform (Kubernetes 1.34 schemas +
#           schemas derived from the operators' CRDs), the images of every profile and of the chart's defaults
#           (manifests.py images: listed; explicit tags, no removed docker.io/bitnami/ tag; a file of bad images
#           must fail it) and the Redis commands the chart and the local stack disable (the same, Lua among them);
#           the NetworkPolicies of every profile (manifests.py netpol, on a render with the profile's own Redis and
#           Kafka): a default deny, no rule admitting everything, every store pod isolated and reached only by its
#           clients; negative fixtures (ci/tests/charts/netpol-refused/) that the check must refuse;
#           the store credentials of every profile (ci/tests/charts/credentials.py, on the same render): no service
#           reads a store admin's Secret, and with storeAuth every Kafka, Cassandra and Solr client has its own user
#           (SASL for Kafka) that its schema Job provisions; existingSecrets replace the generated Secrets
#           (ci/tests/charts/credentials-existing.yaml); fixtures the check must refuse (ci/tests/charts/credentials-refused/);
#           the schema Jobs' credential steps run against stand-ins of their tools (ci/tests/charts/init_jobs.py);
#  online:  a local etcd + kube-apiserver + kube-controller-manager (ci/local/control-plane.sh), the operators' CRDs
#           from their Go module zips at the versions of operators/versions.env (ci/local/control-plane/crds.sh),
#           then for every profile a real `helm install` into its own namespace, labelled to enforce the
#           `restricted` Pod Security Standard (no "would violate PodSecurity" warning; every workload and every pod
#           template, as a Pod, admitted by a server-side dry run; a privileged Pod refused, a privileged Deployment
#           warned about: ci/tests/charts/podsecurity/), objects checked with kubectl, Deployments -> ReplicaSets -> Pods,
#           a Job from the k6 smoke CronJob, the `helm test` Pods, the release's NOTES naming every store user's
#           generated Secret, the generated store credentials unchanged by a `helm upgrade` (lookup) and removed by
#           one with existingSecrets, and invalid values that must be refused by values.schema.json and, past it, by
#           the API server.
# Profiles: values/**/*.yaml and ci/tests/charts/profiles/*.yaml (optional features; names the chart must carry
# through) for the umbrella chart, charts/<chart>/ci/*.yaml for any chart. A profile's `# expect-render: REGEX` lines
# must each match a line of its render, its `# absent-render: REGEX` lines none.
# Usage: ci/tests/charts.sh   (NEWSFEED_PORT_OFFSET defaults to 900; NEWSFEED_CHARTS_DIR / NEWSFEED_VALUES_DIR
#        point it at other charts; NEWSFEED_CHARTS_KEEP=1 keeps the work dir with every check's log)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
HERE=$ROOT/ci/tests/charts
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
BIN=${NEWSFEED_BIN:-$CACHE/bin}
PATH=$BIN:$PATH
CHARTS_DIR=${NEWSFEED_CHARTS_DIR:-$ROOT/charts}
VALUES_DIR=${NEWSFEED_VALUES_DIR:-$ROOT/values}
UMBRELLA=newsfeed
RELEASE=newsfeed
K8S_VERSION=v1.34.4
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-900}

WORK=$(mktemp -d /tmp/newsfeed-charts-test.XXXXXX)
export NEWSFEED_RUN=$WORK/run
# helm keeps its repositories/cache here, never in the user's config
export HELM_CONFIG_HOME=$WORK/helm/config HELM_CACHE_HOME=$WORK/helm/cache HELM_DATA_HOME=$WORK/helm/data
export KUBECONFIG=$NEWSFEED_RUN/control-plane/kubeconfig
started_plane=false passed=0 failed=0
cleanup() {
  local rc=$?
  if $started_plane; then bash ci/local/control-plane.sh stop || true; fi
  if [ "$failed" -eq 0 ] && [ "$rc" -eq 0 ] && [ -z "${NEWSFEED_CHARTS_KEEP:-}" ]; then rm -rf "$WORK"
  else echo "kept $WORK (logs, renders)" >&2; fi
}
trap cleanup EXIT

# check NAME CMD...: one counted test; the command's output goes to a log shown (tail) only on failure
check() {
  local name=$1; shift
  local log; log=$WORK/logs/$(echo "$name" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-120).log
  mkdir -p "$WORK/logs"
  if "$@" > "$log" 2>&1; then
    passed=$((passed + 1)); echo "ok - $name"
  else
    failed=$((failed + 1)); echo "FAIL - $name"; tail -n 25 "$log" | sed 's/^/    /'
  fi
}
note() { echo "# $*"; }
fail_now() { failed=$((failed + 1)); echo "FAIL - $1"; }

# ---------------------------------------------------------------- prerequisites
missing=()
for tool in helm kubeconform etcd kube-apiserver kube-controller-manager; do
  [ -x "$BIN/$tool" ] || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  fail_now "pinned tools present in $BIN (missing: ${missing[*]}; run bash ci/local/tools.sh all)"
fi
VENV=$(bash "$HERE/pyenv.sh")
PY=$VENV/bin/python
manifests() { "$PY" "$HERE/manifests.py" "$@"; }

mapfile -t CHARTS < <(for f in "$CHARTS_DIR"/*/Chart.yaml; do [ -f "$f" ] && basename "$(dirname "$f")"; done)
if [ ${#CHARTS[@]} -eq 0 ]; then fail_now "charts found under $CHARTS_DIR"; fi
# a profile is "chart|values file|namespace"
PROFILES=()
if [ -d "$VALUES_DIR" ]; then
  while read -r f; do
    rel=${f#"$VALUES_DIR"/}; rel=${rel%.y*ml}
    PROFILES+=("$UMBRELLA|$f|v-$(echo "$rel" | tr -c 'a-z0-9\n' '-' | cut -c1-50)")
  done < <(find "$VALUES_DIR" -type f \( -name '*.yaml' -o -name '*.yml' \) | sort)
fi
for f in "$HERE"/profiles/*.yaml; do
  [ -f "$f" ] && PROFILES+=("$UMBRELLA|$f|t-$(basename "$f" .yaml | tr -c 'a-z0-9\n' '-' | cut -c1-50)")
done
for c in "${CHARTS[@]}"; do
  for f in "$CHARTS_DIR/$c"/ci/*.yaml; do
    [ -f "$f" ] || continue
    rel=$(basename "${f%.yaml}")
    PROFILES+=("$c|$f|ci-$(echo "$c-$rel" | tr -c 'a-z0-9\n' '-' | cut -c1-50)")
  done
done
umbrella_profiles=0
for p in "${PROFILES[@]}"; do [[ $p == "$UMBRELLA|"* ]] && umbrella_profiles=$((umbrella_profiles + 1)); done
[ "$umbrella_profiles" -gt 0 ] || fail_now "values profiles for the $UMBRELLA chart under $VALUES_DIR"
note "${#CHARTS[@]} charts (${CHARTS[*]}), ${#PROFILES[@]} profiles"

# ---------------------------------------------------------------- offline copy of the charts
# The umbrella declares Bitnami redis/kafka dependencies that no chart repository here can serve: a copy
# without them is built from the file:// dependencies and installed with redis/kafka pointed at external
# stores (ci/tests/charts/offline-values.yaml).
cp -rL "$CHARTS_DIR" "$WORK/charts"   # -L: files/k6 links to the repository's k6/ scripts
declare -A DROPPED=()
build_deps() {
  local dir=$WORK/charts/$1 dropped dep
  grep -q '^dependencies:' "$dir/Chart.yaml" || return 0
  dropped=$(manifests strip-deps "$dir/Chart.yaml")
  DROPPED[$1]=$(echo "$dropped" | xargs)
  if [ -n "$dropped" ]; then
    rm -f "$dir/Chart.lock"
    for dep in $dropped; do rm -f "$dir/charts/$dep"-*.tgz; done
    helm dependency update --skip-refresh "$dir"
  else
    helm dependency build --skip-refresh "$dir"
  fi
}
for c in "${CHARTS[@]}"; do
  check "$c: dependencies build offline" build_deps "$c"   # (check runs it in this shell: DROPPED is kept)
  [ -z "${DROPPED[$c]:-}" ] || note "$c: subcharts ${DROPPED[$c]} are NOT installed offline (Bitnami, no chart repository here):" \
    "installed with ${DROPPED[$c]// /, } disabled and external endpoints (ci/tests/charts/offline-values.yaml)"
done
# extra values for installs of a chart whose repository dependencies were dropped
offline_args() { if [ -n "${DROPPED[$1]:-}" ] && [ -f "$HERE/offline-values.yaml" ]; then echo "-f $HERE/offline-values.yaml"; fi; }

# ---------------------------------------------------------------- lint
for c in "${CHARTS[@]}"; do
  check "$c: helm lint --strict" helm lint --strict "$WORK/charts/$c"
done
for p in "${PROFILES[@]}"; do
  IFS='|' read -r c f ns <<<"$p"
  # shellcheck disable=SC2046   # offline_args is "" or "-f FILE"
  check "$c: helm lint --strict -f ${f#"$ROOT"/}" helm lint --strict "$WORK/charts/$c" -f "$f" $(offline_args "$c")
done

# ---------------------------------------------------------------- render, security policy, kubeconform
mapfile -t CRD_FILES < <(bash ci/local/control-plane/crds.sh files)
# CRD-derived JSON schemas and API versions, cached per CRD set and converter version
derived=$CACHE/crds/derived-$(cat "${CRD_FILES[@]}" "$HERE/manifests.py" 2>/dev/null | sha256sum | cut -c1-16)
if [ ! -f "$derived/.done" ]; then
  rm -rf "$derived"; mkdir -p "$derived"
  manifests crd-schemas "$derived/schemas" "${CRD_FILES[@]}"
  manifests crd-index "${CRD_FILES[@]}" > "$derived/crd-index.txt"
  touch "$derived/.done"
  find "$CACHE/crds" -maxdepth 1 -name 'derived-*' ! -path "$derived" -exec rm -rf {} +   # older versions
fi
# helm template sees the API of a cluster with every pinned CRD: `group/version` and `group/version/Kind`
API_VERSIONS=$(awk '{print $1; print $1 "/" $2}' "$derived/crd-index.txt" | sort -u | paste -sd,)

render() {  # render CHART VALUES NS OUT: what `helm install` would send to a 1.34 cluster with the CRDs
  # shellcheck disable=SC2046
  helm template "$RELEASE" "$WORK/charts/$1" -n "$3" -f "$2" $(offline_args "$1") \
    --kube-version "$K8S_VERSION" --api-versions "$API_VERSIONS" > "$4"
}
# render_full CHART NS OUT VALUES...: the same without the offline values, so the chart's objects for its own Redis and
# Kafka (their NetworkPolicies) are rendered as the profile has them (the subcharts themselves are not: dropped)
render_full() {
  local c=$1 ns=$2 out=$3 args=() f; shift 3
  for f in "$@"; do args+=(-f "$f"); done
  helm template "$RELEASE" "$WORK/charts/$c" -n "$ns" "${args[@]}" \
    --kube-version "$K8S_VERSION" --api-versions "$API_VERSIONS" > "$out"
}
not_rendered() { ! grep -nE -- "$1" "$2"; }   # not_rendered REGEX FILE: shows the lines that match, if any
netpol_check() {  # netpol_check NS VALUES: manifests.py netpol on the full render of the umbrella with VALUES
  render_full "$UMBRELLA" "$1" "$WORK/render/$1/full.yaml" "$2" || return 1
  manifests netpol "$RELEASE" "$WORK/render/$1/full.yaml" "$CHARTS_DIR/$UMBRELLA/values.yaml" "$2"
}
credentials() { "$PY" "$HERE/credentials.py" "$@"; }
# credentials_check NS VALUES: credentials.py on the same full render (its own Kafka's Secret included)
credentials_check() {
  [ -s "$WORK/render/$1/full.yaml" ] || render_full "$UMBRELLA" "$1" "$WORK/render/$1/full.yaml" "$2" || return 1
  credentials "$RELEASE" "$WORK/render/$1/full.yaml" "$CHARTS_DIR/$UMBRELLA/values.yaml" "$2"
}
# images_check NAME CHART DIR VALUES: the images of DIR/a.yaml (and of CHART's Bitnami subcharts from VALUES), listed
# in DIR/images.txt; each profile's list is printed below as one table
images_check() {
  local name=$1 c=$2 dir=$3 f=$4
  check "$name: images listed, each with an explicit tag, none a removed docker.io/bitnami/ tag" \
    manifests images "$dir/images.txt" "$dir/a.yaml" "$CHARTS_DIR/$c" ${f:+"$f"}
}
kubeconform_check() {
  kubeconform -strict -summary -output text \
    -schema-location "$VENV/k8s-schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
    -schema-location "$derived/schemas/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json" "$1"
}
for p in "${PROFILES[@]}"; do
  IFS='|' read -r c f ns <<<"$p"
  name="$c -f ${f#"$ROOT"/}"
  mkdir -p "$WORK/render/$ns"
  if render "$c" "$f" "$ns" "$WORK/render/$ns/a.yaml" 2> "$WORK/render/$ns/err" &&
     render "$c" "$f" "$ns" "$WORK/render/$ns/b.yaml" 2>> "$WORK/render/$ns/err"; then
    check "$name: security policy on the rendered pods (non-root, read-only FS, no escalation, drop ALL, seccomp, no token, secrets only)" \
      manifests security "$WORK/render/$ns/a.yaml" "$WORK/render/$ns/b.yaml"
    if [ "$c" = "$UMBRELLA" ]; then
      check "$name: social-graph and inbound read REDIS_URL from Secret $RELEASE-redis-auth, NetworkPolicies let them reach Redis" \
        manifests redis-clients "$RELEASE" "$WORK/render/$ns/a.yaml"
      check "$name: every k6 CronJob's script and the lib/ modules it imports are in its scripts volume, with the services' URLs" \
        manifests k6-scripts "$WORK/render/$ns/a.yaml"
      check "$name: NetworkPolicies: default deny, no rule admitting everything, every store pod (its Redis and Kafka too) isolated and reached only by its clients" \
        netpol_check "$ns" "$f"
      check "$name: store credentials: no service reads a store admin's Secret; with storeAuth each Kafka (SASL), Cassandra and Solr client its own user, which its schema Job provisions" \
        credentials_check "$ns" "$f"
    fi
    check "$name: kubeconform -strict (Kubernetes $K8S_VERSION + CRD schemas)" kubeconform_check "$WORK/render/$ns/a.yaml"
    # a profile's `# expect-render: REGEX` lines must each match a line of its render, `# absent-render: REGEX` none
    while IFS= read -r re; do
      check "$name: a rendered line matches /$re/" grep -qE -- "$re" "$WORK/render/$ns/a.yaml"
    done < <(sed -n 's/^# expect-render: //p' "$f")
    while IFS= read -r re; do
      check "$name: no rendered line matches /$re/" not_rendered "$re" "$WORK/render/$ns/a.yaml"
    done < <(sed -n 's/^# absent-render: //p' "$f")
    images_check "$name" "$c" "$WORK/render/$ns" "$f"
  else
    fail_now "$name: helm template"; sed 's/^/    /' "$WORK/render/$ns/err" | tail -n 20
  fi
done

# ---------------------------------------------------------------- images
# Every image a profile runs, including those of the Bitnami subcharts (read from the values: they are not rendered
# offline), with an explicit tag and none from docker.io/bitnami's removed versioned tags (manifests.py images).
# The chart's defaults (no profile) are a profile here too; a file of bad images must make the check fail.
note "images of the chart's defaults and of every profile (README.md of the chart, section Images, says where each is set):"
mkdir -p "$WORK/render/default"
echo '{}' > "$WORK/render/default/values.yaml"
if render "$UMBRELLA" "$WORK/render/default/values.yaml" default "$WORK/render/default/a.yaml" 2> "$WORK/render/default/err"; then
  images_check "$UMBRELLA (chart defaults)" "$UMBRELLA" "$WORK/render/default" ""
else
  fail_now "$UMBRELLA (chart defaults): helm template"; sed 's/^/    /' "$WORK/render/default/err" | tail -n 20
fi
# expected_problems FIXTURE OUTPUT: the fixture names what its check must refuse (`# expect: REGEX` lines) and every
# one of them matches a problem in the check's output
expected_problems() {
  local re unmatched=0
  grep -q '^# expect: ' "$1" || { echo ">> $1 has no '# expect: REGEX' line"; return 1; }
  while read -r re; do
    grep -qE "$re" "$2" || { echo ">> no problem matches /$re/"; unmatched=1; }
  done < <(sed -n 's/^# expect: //p' "$1")
  [ "$unmatched" -eq 0 ]
}
# images_refused FILE: the defaults with FILE on top render, and the images check fails with every `# expect:` line
images_refused() {
  local bad=$1 dir=$WORK/render/images-refused rc=0
  mkdir -p "$dir"
  render "$UMBRELLA" "$bad" default "$dir/a.yaml" || return 1
  manifests images "$dir/images.txt" "$dir/a.yaml" "$CHARTS_DIR/$UMBRELLA" "$bad" > "$dir/out.txt" || rc=$?
  cat "$dir/out.txt"
  [ "$rc" -ne 0 ] || { echo ">> the images check passed; it must fail"; return 1; }
  expected_problems "$bad" "$dir/out.txt"
}
if [ -f "$HERE/images-refused.yaml" ]; then
  check "images check refuses a removed docker.io/bitnami tag, latest, untagged images and a key the subchart ignores (${HERE#"$ROOT"/}/images-refused.yaml)" \
    images_refused "$HERE/images-refused.yaml"
  sed -n 's/^FAIL: /#   refused as expected: /p' "$WORK/render/images-refused/out.txt" 2>/dev/null || true
fi
# one line per distinct image: the profiles that run it
note "distinct images (profiles):"
for l in "$WORK"/render/*/images.txt; do
  [ -f "$l" ] || continue
  [ "$(basename "$(dirname "$l")")" = images-refused ] && continue
  awk -F '\t' -v p="$(basename "$(dirname "$l")")" '{print $1 "\t" p "\t" $3}' "$l"
done | sort -u | awk -F '\t' '{ps[$1] = ps[$1] (ps[$1] ? " " : "") $2; n[$1] = $3} END {for (r in ps) print r "\t" ps[r] "\t" n[r]}' |
  sort | while IFS=$'\t' read -r ref profiles flag; do note "  $ref  ($profiles)${flag:+  [$flag]}"; done

# the local stack's Redis (ci/local/stack/stores/redis.sh) refuses the same commands as the chart's
redis_disabled_parity() {
  local stack
  # shellcheck source=ci/local/stack/stores/redis.sh
  stack=$(source ci/local/stack/stores/redis.sh && echo "${REDIS_DISABLED_COMMANDS[*]}") || return 1
  manifests redis-disabled "$CHARTS_DIR/$UMBRELLA/values.yaml" "$stack"
}
check "Redis: the chart (redis.master/replica.disableCommands) and the local stack disable the same commands, Lua among them" \
  redis_disabled_parity

# a cache at a memory limit in every profile that installs Redis, and in the local stack as in the chart's defaults
redis_memory_parity() {
  local stack p c f profiles=()
  # shellcheck source=ci/local/stack/stores/redis.sh
  stack=$(unset NEWSFEED_REDIS_MAXMEMORY; source ci/local/stack/stores/redis.sh &&
    echo "$REDIS_MAXMEMORY $REDIS_MAXMEMORY_POLICY") || return 1
  for p in "${PROFILES[@]}"; do
    IFS='|' read -r c f _ <<<"$p"
    if [ "$c" = "$UMBRELLA" ]; then profiles+=("$f"); fi
  done
  manifests redis-memory "$CHARTS_DIR/$UMBRELLA/values.yaml" "$stack" "${profiles[@]}"
}
check "Redis: no persistence, maxmemory at most 80 % of its memory limit and volatile-ttl in every profile; the local stack's maxmemory and policy are the chart's" \
  redis_memory_parity

# The umbrella profile the negative cases override: dev if there is one, else the first.
base=""
for p in "${PROFILES[@]}"; do
  IFS='|' read -r c f ns <<<"$p"
  [ "$c" = "$UMBRELLA" ] || continue
  [ -n "$base" ] || base=$f
  [[ $f == */dev.yaml ]] && base=$f
done
# netpol_refused FILE: the base profile with FILE on top renders, and the NetworkPolicy check fails with every
# `# expect:` line of FILE
netpol_refused() {
  local bad=$1 dir rc=0
  dir=$WORK/render/netpol-refused/$(basename "$bad" .yaml)
  mkdir -p "$dir"
  render_full "$UMBRELLA" netpol-refused "$dir/full.yaml" "$base" "$bad" || return 1
  manifests netpol "$RELEASE" "$dir/full.yaml" "$CHARTS_DIR/$UMBRELLA/values.yaml" "$base" "$bad" > "$dir/out.txt" || rc=$?
  cat "$dir/out.txt"
  [ "$rc" -ne 0 ] || { echo ">> the NetworkPolicy check passed; it must fail"; return 1; }
  expected_problems "$bad" "$dir/out.txt"
}
if [ -n "$base" ]; then
  n=0
  for bad in "$HERE"/netpol-refused/*.yaml; do
    [ -f "$bad" ] || continue
    n=$((n + 1))
    check "NetworkPolicy check refuses ${bad#"$ROOT"/} over ${base#"$ROOT"/}: $(sed -n '1s/^# //p' "$bad")" netpol_refused "$bad"
  done
  [ "$n" -gt 0 ] || fail_now "negative NetworkPolicy cases under $HERE/netpol-refused"
fi
# credentials_refused FILE: the base profile with FILE on top renders (the chart's own validation lets it through), and
# the store credentials check fails with every `# expect:` line of FILE
credentials_refused() {
  local bad=$1 dir rc=0
  dir=$WORK/render/credentials-refused/$(basename "$bad" .yaml)
  mkdir -p "$dir"
  render_full "$UMBRELLA" credentials "$dir/full.yaml" "$base" "$bad" || return 1
  credentials "$RELEASE" "$dir/full.yaml" "$CHARTS_DIR/$UMBRELLA/values.yaml" "$base" "$bad" > "$dir/out.txt" || rc=$?
  cat "$dir/out.txt"
  [ "$rc" -ne 0 ] || { echo ">> the store credentials check passed; it must fail"; return 1; }
  expected_problems "$bad" "$dir/out.txt"
}
# GENERATED_CREDENTIALS: the names of the Secrets the chart generates for store credentials (any release name)
GENERATED_CREDENTIALS="^Secret $RELEASE-((kafka|cassandra|solr)-(outbound|inbound|search)|kafka-kafka-lag-exporter|kafka-auth)\$"
# credential_digests NS: `name digest` of every generated credential Secret of the release (digests: no password is
# ever written to a log)
credential_digests() {
  local name data
  kubectl get secrets -n "$1" -o json |
    jq -r --arg re "^${GENERATED_CREDENTIALS#^Secret }" '.items[] | select(.metadata.name | test($re))
      | "\(.metadata.name) \(.data | tojson)"' |
    while read -r name data; do echo "$name $(printf '%s' "$data" | sha256sum | cut -c1-16)"; done | sort
}
# existing_credentials: the base profile with credentials-existing.yaml passes the check, every service user is an
# existing Secret, and the chart renders none of its credential Secrets
existing_credentials() {
  local dir=$WORK/render/credentials-existing generated
  mkdir -p "$dir"
  render_full "$UMBRELLA" credentials "$dir/full.yaml" "$base" "$HERE/credentials-existing.yaml" || return 1
  credentials "$RELEASE" "$dir/full.yaml" "$CHARTS_DIR/$UMBRELLA/values.yaml" "$base" "$HERE/credentials-existing.yaml" \
    | tee "$dir/out.txt" || return 1
  [ "$(grep -c ' (existing)$' "$dir/out.txt")" -eq 6 ] || { echo ">> not 6 service users from existing Secrets"; return 1; }
  generated=$(manifests summary "$dir/full.yaml" | grep -E "$GENERATED_CREDENTIALS" || true)
  [ -z "$generated" ] || { echo ">> rendered anyway: $generated"; return 1; }
}
if [ -n "$base" ]; then
  n=0
  for bad in "$HERE"/credentials-refused/*.yaml; do
    [ -f "$bad" ] || continue
    n=$((n + 1))
    check "store credentials check refuses ${bad#"$ROOT"/} over ${base#"$ROOT"/}: $(sed -n '1s/^# //p' "$bad")" \
      credentials_refused "$bad"
  done
  [ "$n" -gt 0 ] || fail_now "negative store credentials cases under $HERE/credentials-refused"
  check "store credentials: existingSecrets replace every generated Secret (${HERE#"$ROOT"/}/credentials-existing.yaml over ${base#"$ROOT"/})" \
    existing_credentials
fi
# offline, the exact statements of the schema Jobs' steps, against stand-ins of their tools (the store-auth suite runs
# the same scripts against real stores with authentication)
check "schema Job scripts against stand-ins of Kafka's tools, cqlsh and Solr: the users, ACLs, roles and permissions of the matrix, no password on a command line (ci/tests/charts/init_jobs.py)" \
  "$PY" "$HERE/init_jobs.py" "$CHARTS_DIR/$UMBRELLA"

# ---------------------------------------------------------------- control plane + CRDs
check "control plane up (etcd, kube-apiserver $K8S_VERSION, kube-controller-manager; /readyz)" bash ci/local/control-plane.sh start
started_plane=true
if ! bash ci/local/control-plane.sh status >/dev/null 2>&1; then
  echo "charts: $passed passed, $failed failed"; exit 1
fi
# Only the CRDs of kinds the profiles render are applied: the API server needs ~1 s of CPU per big CRD
# (all 46 take minutes on 2 busy cores); a kind no pinned CRD defines fails its install below.
mapfile -t NEEDED_CRDS < <(cat "$WORK"/render/*/a.yaml 2>/dev/null > "$WORK/render/all.yaml";
  manifests kinds "$WORK/render/all.yaml" | awk 'NR == FNR {crd[$1 " " $2] = $3; next} ($1 " " $2) in crd {print crd[$1 " " $2]}' \
    "$derived/crd-index.txt" - | sort -u)
check "operator CRDs from Go module zips applied and Established (${NEEDED_CRDS[*]:-none rendered})" \
  bash ci/local/control-plane/crds.sh apply "${NEEDED_CRDS[@]}"
note "server $(kubectl version -o json 2>/dev/null | jq -r .serverVersion.gitVersion), $(kubectl get crd --no-headers | wc -l) CRDs"

# ---------------------------------------------------------------- Pod Security
# Every profile is installed into a namespace that enforces the `restricted` Pod Security Standard (the API server's
# PodSecurity admission, on by default): Pods that violate it are refused, workloads (Deployments, Jobs, CronJobs)
# are admitted with a "would violate PodSecurity" warning. First the admission itself, on deliberately privileged
# objects (ci/tests/charts/podsecurity/).
PSA_LABELS=(pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version=latest
  pod-security.kubernetes.io/warn=restricted pod-security.kubernetes.io/audit=restricted)
restricted_namespace() {  # restricted_namespace NS: create NS labelled for `restricted`, wait for its default ServiceAccount
  kubectl create namespace "$1" >/dev/null && kubectl label namespace "$1" "${PSA_LABELS[@]}" >/dev/null || return 1
  local deadline=$((SECONDS + 60))
  until kubectl get serviceaccount default -n "$1" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { echo "no default ServiceAccount in $1"; return 1; }
    sleep 1
  done
}
psa_refused() {  # a privileged Pod: refused by admission
  local out rc=0
  out=$(kubectl create --dry-run=server -n psa-check -f "$HERE/podsecurity/privileged-pod.yaml" 2>&1) || rc=$?
  echo "$out"
  [ "$rc" -ne 0 ] || { echo ">> the privileged Pod was admitted"; return 1; }
  grep -q 'violates PodSecurity "restricted:latest"' <<<"$out"
}
psa_warned() {  # a privileged Deployment: admitted, with the warning the profiles' installs must not show
  local out
  out=$(kubectl create --dry-run=server -n psa-check -f "$HERE/podsecurity/privileged-deployment.yaml" 2>&1) || return 1
  echo "$out"
  grep -q 'would violate PodSecurity "restricted:latest"' <<<"$out"
}
check "namespace psa-check labelled to enforce Pod Security restricted" restricted_namespace psa-check
check "PodSecurity restricted refuses a privileged Pod (ci/tests/charts/podsecurity/privileged-pod.yaml)" psa_refused
check "PodSecurity restricted warns about a privileged Deployment: \"would violate PodSecurity\" (ci/tests/charts/podsecurity/privileged-deployment.yaml)" \
  psa_warned

# ---------------------------------------------------------------- real installs
# install_profile CHART VALUES NS: a real install (no --wait, no --dry-run). Hooks other than tests would
# make helm wait for Jobs no kubelet runs: such charts install with --no-hooks and their hooks are
# validated by the API server with a server-side dry run below.
install_profile() {
  local c=$1 f=$2 ns=$3 flags=() out rc=0
  restricted_namespace "$ns" || return 1
  if manifests hooks "$WORK/render/$ns/a.yaml" 2>/dev/null | grep -v '^test' > /dev/null; then flags+=(--no-hooks); fi
  # shellcheck disable=SC2046
  out=$(helm install "$RELEASE" "$WORK/charts/$c" -n "$ns" -f "$f" $(offline_args "$c") "${flags[@]}" --timeout 2m 2>&1) || rc=$?
  echo "$out"
  [ "$rc" -eq 0 ] || return "$rc"
  ! grep -i 'would violate PodSecurity' <<<"$out" || { echo ">> PodSecurity warnings above"; return 1; }
}
# podsecurity_admits NS: every workload of the profile's render (renamed) and every pod template as a Pod, created
# with a server-side dry run in its namespace (enforcing `restricted`): all admitted, no PodSecurity warning
podsecurity_admits() {
  local ns=$1 dir=$WORK/render/$1 out rc=0 files=() want=0 n warnings f
  manifests pod-templates "$dir/a.yaml" "$dir/psa-workloads.yaml" "$dir/psa-pods.yaml" || return 1
  for f in "$dir/psa-workloads.yaml" "$dir/psa-pods.yaml"; do
    [ -s "$f" ] || continue
    files+=(-f "$f"); want=$((want + $(grep -c '^kind:' "$f")))
  done
  out=$(kubectl create --dry-run=server -n "$ns" "${files[@]}" 2>&1) || rc=$?
  echo "$out"
  n=$(grep -c 'created (server dry run)' <<<"$out" || true)
  warnings=$(grep -ciE 'violates? PodSecurity' <<<"$out" || true)
  echo ">> $n of $want objects admitted, $warnings PodSecurity warnings or refusals"
  [ "$rc" -eq 0 ] && [ "$n" -eq "$want" ] && [ "$warnings" -eq 0 ]
}
objects_exist() {  # every object of the release manifest is in the API server
  helm get manifest "$RELEASE" -n "$1" > "$WORK/render/$1/installed.yaml" || return 1
  kubectl get -n "$1" -f "$WORK/render/$1/installed.yaml" -o name
}
# has NS KIND NAME_REGEX MIN: at least MIN objects of KIND whose name matches
has() {
  local n; n=$(kubectl get "$2" -n "$1" -o name | sed 's|.*/||' | grep -cE "$3" || true)
  echo "$2 matching /$3/: $n (want >= $4)"
  [ "$n" -ge "$4" ]
}
# rendered NS KIND: how many objects of KIND the profile renders
rendered() { manifests summary "$WORK/render/$1/a.yaml" | grep -c "^$2 " || true; }
# umbrella_objects NS: the objects the profile's values turn on (services, store CRs, init Jobs, k6 CronJobs,
# monitoring, routes, policies) are in the API server
umbrella_objects() {
  local ns=$1 rc=0 resource regex min label n dns
  helm get values "$RELEASE" -n "$ns" --all -o json > "$WORK/render/$ns/values.json"
  while read -r resource regex min; do
    has "$ns" "$resource" "$regex" "$min" || rc=1
  done < <(manifests expect "$RELEASE" < "$WORK/render/$ns/values.json")
  if [ "$(jq -r '.monitoring.dashboards.enabled // false' "$WORK/render/$ns/values.json")" = true ]; then
    label=$(jq -r '"\(.monitoring.dashboards.label // "grafana_dashboard")=\(.monitoring.dashboards.labelValue // "1")"' \
      "$WORK/render/$ns/values.json")
    dns=$(jq -r '.monitoring.dashboards.namespace // ""' "$WORK/render/$ns/values.json")
    n=$(kubectl get configmaps -n "${dns:-$ns}" -l "$label" -o name | wc -l)
    echo "dashboard ConfigMaps ($label): $n"; [ "$n" -ge 1 ] || rc=1
  fi
  return $rc
}
# notes_name NS SECRET...: the release's NOTES (`helm get notes`) name each of these store users' Secrets
notes_name() {
  local notes n rc=0
  notes=$(helm get notes "$RELEASE" -n "$1") || return 1
  shift
  grep -A6 'Store credentials' <<<"$notes"
  for n in "$@"; do grep -qE "(^|[ ,:])$n([ ,]|\$)" <<<"$notes" || { echo ">> the NOTES do not name $n"; rc=1; }; done
  echo "$# store user Secrets looked for"
  return $rc
}
for p in "${PROFILES[@]}"; do
  IFS='|' read -r c f ns <<<"$p"
  name="$c -f ${f#"$ROOT"/}"
  [ -s "$WORK/render/$ns/a.yaml" ] || continue
  check "$name: helm install into namespace $ns (enforcing Pod Security restricted; no PodSecurity warning)" \
    install_profile "$c" "$f" "$ns" || true
  helm status "$RELEASE" -n "$ns" >/dev/null 2>&1 || continue
  check "$name: every rendered object exists in the API server" objects_exist "$ns"
  check "$name: PodSecurity restricted admits every workload and every pod template as a Pod (server dry run, no warning)" \
    podsecurity_admits "$ns"
  if [ "$c" = "$UMBRELLA" ]; then
    check "$name: objects its values turn on (service Deployments/Services, store CRs, init Jobs, k6 CronJobs, monitoring, dashboards)" umbrella_objects "$ns"
    users=$(credential_digests "$ns" | cut -d' ' -f1 | grep -v -- '-kafka-auth$' || true)
    if [ -n "$users" ]; then
      # shellcheck disable=SC2086  # one Secret name per word
      check "$name: the release's NOTES name every generated store user Secret" notes_name "$ns" $users
    fi
  fi
done

# ---------------------------------------------------------------- controllers, k6 job, test hooks
# rollout NS: the controller-manager turned every Deployment into a ReplicaSet and its Pods (Pending:
# no kubelet); polls up to 60 s, the first profiles' objects are the oldest
rollout() {
  local deadline=$((SECONDS + 60))
  until kubectl get deployments,replicasets,pods -n "$1" -o json | manifests rollout; do
    [ $SECONDS -lt $deadline ] || { kubectl get events -n "$1" --field-selector type=Warning | tail -n 10; return 1; }
    sleep 2
  done
}
# k6_job NS: a load run is started the documented way; the job controller must create its Pod
k6_job() {
  kubectl create job --from="cronjob/$RELEASE-k6-smoke" ci-smoke -n "$1" || return 1
  local deadline=$((SECONDS + 60))
  until [ -n "$(kubectl get pods -n "$1" -l job-name=ci-smoke -o name)" ]; do
    [ $SECONDS -lt $deadline ] || { kubectl describe job ci-smoke -n "$1" | tail -n 15; return 1; }
    sleep 2
  done
  kubectl get job,pods -n "$1" -l job-name=ci-smoke
}
# hooks_accepted NS: every hook of the release (tests included) passes the API server's validation
hooks_accepted() {
  helm get hooks "$RELEASE" -n "$1" > "$WORK/render/$1/hooks.yaml" || return 1
  [ -s "$WORK/render/$1/hooks.yaml" ] || { echo "no hooks rendered"; return 1; }
  kubectl apply --dry-run=server -n "$1" -f "$WORK/render/$1/hooks.yaml"
}
# helm_test_pods NS: `helm test` creates each test Pod (then waits for a kubelet that never comes: it stops at
# the first timeout, hence one `--filter` run per test)
helm_test_pods() {
  local tests t
  tests=$(manifests hooks "$WORK/render/$1/a.yaml" | awk '$1 ~ /(^|,)test(,|$)/ {print $2 "/" $3}')
  [ -n "$tests" ] || { echo "the chart has no helm test hook"; return 1; }
  for t in $tests; do
    helm test "$RELEASE" -n "$1" --filter "name=${t#*/}" --timeout 5s || true
    kubectl get -n "$1" "$t" -o name || return 1
  done
}
for p in "${PROFILES[@]}"; do
  IFS='|' read -r c f ns <<<"$p"
  name="$c -f ${f#"$ROOT"/}"
  helm status "$RELEASE" -n "$ns" >/dev/null 2>&1 || continue
  if [ "$(rendered "$ns" Deployment)" -gt 0 ]; then
    check "$name: Deployments produced ReplicaSets and Pods (controller-manager)" rollout "$ns"
  fi
  if [ "$c" = "$UMBRELLA" ]; then
    check "$name: kubectl create job --from=cronjob/$RELEASE-k6-smoke creates the Job and its Pod" k6_job "$ns"
    check "$name: Helm hooks accepted by kubectl apply --dry-run=server" hooks_accepted "$ns"
    check "$name: helm test creates the test Pods" helm_test_pods "$ns"
  elif manifests hooks "$WORK/render/$ns/a.yaml" | grep . > /dev/null; then
    check "$name: hooks accepted by kubectl apply --dry-run=server" hooks_accepted "$ns"
  fi
done

# ---------------------------------------------------------------- store credentials across upgrades
# upgrade_profile NS VALUES...: helm upgrade of the profile's release (hooks as at its install)
upgrade_profile() {
  local ns=$1 flags=() args=() f; shift
  for f in "$@"; do args+=(-f "$f"); done
  if manifests hooks "$WORK/render/$ns/a.yaml" 2>/dev/null | grep -v '^test' > /dev/null; then flags+=(--no-hooks); fi
  # shellcheck disable=SC2046
  helm upgrade "$RELEASE" "$WORK/charts/$UMBRELLA" -n "$ns" "${args[@]}" $(offline_args "$UMBRELLA") "${flags[@]}" \
    --timeout 2m > /dev/null
}
# credentials_kept NS VALUES: a second `helm upgrade` with the same values keeps every generated password (lookup), and
# its NOTES say how to restart the services
credentials_kept() {
  local before after
  before=$(credential_digests "$1")
  echo "before: $(wc -l <<<"$before") credential Secrets"
  [ -n "$before" ] || { echo ">> no generated credential Secret installed"; return 1; }
  upgrade_profile "$1" "$2" || return 1
  after=$(credential_digests "$1")
  diff <(echo "$before") <(echo "$after") || { echo ">> the upgrade changed generated credentials"; return 1; }
  # the services read their env ConfigMaps at start: an upgrade's NOTES say how to restart them
  helm get notes "$RELEASE" -n "$1" |
    grep -F "rollout restart deployment -l app.kubernetes.io/instance=$RELEASE,app.kubernetes.io/component=service" ||
    { echo ">> the upgrade's NOTES do not say how to restart the services"; return 1; }
}
# credentials_replaced NS VALUES: an upgrade with credentials-existing.yaml removes the generated Secrets, the
# services read the existing ones and the NOTES name them
credentials_replaced() {
  local left refs
  upgrade_profile "$1" "$2" "$HERE/credentials-existing.yaml" || return 1
  left=$(credential_digests "$1")
  [ -z "$left" ] || { echo ">> generated credential Secrets left: $left"; return 1; }
  refs=$(kubectl get deployments -n "$1" -o json |
    jq -r '[.items[].spec.template.spec.containers[].env[]?.valueFrom.secretKeyRef.name // empty] | unique | .[]')
  echo "Secrets the Deployments read: $(echo "$refs" | xargs)"
  [ "$(grep -c '^gitops-' <<<"$refs")" -eq 6 ] || { echo ">> the services do not read the 6 existing Secrets"; return 1; }
  # the release's NOTES now name the existing Secrets instead
  # shellcheck disable=SC2046  # one Secret name per word
  notes_name "$1" $(grep '^gitops-' <<<"$refs")
}
for p in "${PROFILES[@]}"; do
  IFS='|' read -r c f ns <<<"$p"
  if [ "$c" != "$UMBRELLA" ] || [ "$f" != "$base" ]; then continue; fi
  helm status "$RELEASE" -n "$ns" >/dev/null 2>&1 || continue
  check "${f#"$ROOT"/}: helm upgrade keeps every generated store credential (lookup); its NOTES say how to restart the services" \
    credentials_kept "$ns" "$f"
  check "${f#"$ROOT"/}: helm upgrade with existingSecrets removes the generated credentials, the services read the existing Secrets, the NOTES name them" \
    credentials_replaced "$ns" "$f"
done

# ---------------------------------------------------------------- values that must be refused
# Each file under ci/tests/charts/invalid/ is a broken override of the base profile above (dev if any),
# with a header `# expect-schema: REGEX` (helm's values.schema.json error, or the message of the chart's own
# checks in templates/validate.yaml) and `# expect-server: REGEX`
# (the API server's error once the schema check is skipped). Both must match the failure output.
refused() {  # refused REGEX HELM_ARGS...: helm install must fail with an error matching REGEX
  local regex=$1; shift
  local out rc=0
  out=$(helm install "$@" 2>&1) || rc=$?
  echo "$out"
  [ "$rc" -ne 0 ] || { echo ">> install succeeded; it must fail"; return 1; }
  grep -qE "$regex" <<<"$out" || { echo ">> error does not match /$regex/"; return 1; }
}
if [ -n "$base" ] && bash ci/local/control-plane.sh status >/dev/null 2>&1; then
  kubectl create namespace invalid >/dev/null
  i=0
  for bad in "$HERE"/invalid/*.yaml; do
    [ -f "$bad" ] || continue
    i=$((i + 1))
    schema_re=$(sed -n 's/^# expect-schema: //p' "$bad")
    server_re=$(sed -n 's/^# expect-server: //p' "$bad")
    what=$(basename "$bad" .yaml)
    # shellcheck disable=SC2046
    if [ -n "$schema_re" ]; then
      check "invalid value $what: refused by values.schema.json or the chart's own checks" refused "$schema_re" "bad-schema-$i" \
        "$WORK/charts/$UMBRELLA" -n invalid -f "$base" $(offline_args "$UMBRELLA") -f "$bad" --no-hooks
    fi
    # shellcheck disable=SC2046
    if [ -n "$server_re" ]; then
      check "invalid value $what: refused by the API server (schema check skipped)" refused "$server_re" \
        "bad-server-$i" "$WORK/charts/$UMBRELLA" -n invalid -f "$base" $(offline_args "$UMBRELLA") -f "$bad" \
        --no-hooks --skip-schema-validation
    fi
  done
  [ "$i" -gt 0 ] || fail_now "invalid-value cases under $HERE/invalid"
  # the objects are named after the release's first 40 characters, values.yaml names them after all of it
  # shellcheck disable=SC2046
  check "a release name of 41 characters: refused by the chart's own checks" refused "release name r+ has 41 characters, at most 40" \
    "$(printf '%.0sr' {1..41})" "$WORK/charts/$UMBRELLA" -n invalid -f "$base" $(offline_args "$UMBRELLA") --no-hooks
fi

note "$SECONDS s"
echo "charts: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
