#!/usr/bin/env bash
# Suite "release": the path to images and a real cluster, checked as far as this machine allows (no Docker, no
# cluster, no registry):
#   - every workflow passes actionlint with shellcheck on, and again with its actions at their major version so
#     actionlint also checks their inputs; actions are pinned by exact version tag; workflows and the scripts
#     they run name only files that exist
#   - the services' Dockerfile passes hadolint and BuildKit's parser with the image policy (pinned bases,
#     numeric non-root USER, exec-form ENTRYPOINT with container JVM flags the JVM accepts, EXPOSE 8080, OCI
#     labels), and its build stages, rehearsed on this machine for each service, produce the jar the image copies;
#     without SERVICE the build stage fails
#   - the linters reject a known-bad Dockerfile (so a pass means something)
#   - one version everywhere: chart appVersions, the Dockerfile's ARG VERSION, the Maven version, the tags CI pushes
#   - the dev profile, rendered with the e2e's image overrides, has what the kind e2e drives: the k6 smoke
#     CronJob, helm test hooks, the recording rules, ServiceMonitors keeping the `service` label, the images
#   - ci/release/assert-recorded.sh passes on a real Prometheus running the chart's rules over API traffic, and
#     fails when only probes and scrapes were served
#   - the registry-free service images of the local node (ci/local/cluster/images.sh) carry the same user, workdir,
#     entrypoint, env, ports and jar path as the Dockerfile's runtime stage (ci/local/cluster/check-image-config.py),
#     every file the ENTRYPOINT names (jar, class-data archive), and their jlinked runtime every module the jars
#     need (jdeps); ci/bench/image-start.sh starts one of them with and without its class-data archives
# Tools: ~/.cache/newsfeed/bin (actionlint, helm, prometheus from ci/local/tools.sh) and ci/release/tools.sh.
# Last line: `release: N passed, N failed`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SERVICES=(social-graph outbound inbound search edge)
# the images of services/Dockerfile: the five services and the chart's Kafka lag exporter
IMAGES=("${SERVICES[@]}" kafka-lag-exporter)
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
BIN=${NEWSFEED_BIN:-$CACHE/bin}
VALUES=${VALUES:-values/dev.yaml}   # the profile the kind e2e installs
TMP=$(mktemp -d /tmp/newsfeed-release.XXXXXX)
passed=0 failed=0 pids=()
log() { echo "[release $(date +%T)] $*" >&2; }
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT

ok() { passed=$((passed + 1)); echo "ok - $1"; }
fail() { failed=$((failed + 1)); echo "FAIL - $1"; }
# check NAME CMD...: one counted test; a failure shows the command's last output lines. Its result: $checked
checked=0
check() {
  local name=$1; shift
  checked=0
  "$@" > "$TMP/out" 2>&1 || checked=$?
  if [ "$checked" -eq 0 ]; then ok "$name"; else fail "$name"; tail -n 25 "$TMP/out" | sed 's/^/    /'; fi
}

log "installing the release tools (ci/release/tools.sh)"
if RELEASE_BIN=$(bash ci/release/tools.sh | tail -n 1); then ok "release tools (hadolint, dockerfile-check) installed"
else fail "release tools (hadolint, dockerfile-check) installed"; echo "release: $passed passed, $failed failed"; exit 1; fi
HADOLINT=$RELEASE_BIN/hadolint
DFCHECK=$RELEASE_BIN/dockerfile-check

# ---------------------------------------------------------------- workflows
WORKFLOWS=(ci images kind-e2e)
# actionlint_both FILE: as written (shellcheck runs on every run: script), then with every action at its major
# version tag, the only form whose inputs actionlint knows
actionlint_both() {
  command -v shellcheck >/dev/null || { echo "shellcheck not on PATH: actionlint would skip run: scripts"; return 1; }
  "$BIN/actionlint" "$1" || return 1
  mkdir -p "$TMP/majors"
  sed -E 's/(uses:[[:space:]]*[^@[:space:]]+@v[0-9]+)\.[0-9]+(\.[0-9]+)?/\1/' "$1" > "$TMP/majors/$(basename "$1")"
  "$BIN/actionlint" "$TMP/majors/$(basename "$1")"
}
# every `uses:` is owner/repo@vX.Y.Z: a moving branch or major tag would change CI under our feet
pinned_actions() {
  local bad
  bad=$(grep -hE '^[[:space:]-]*uses:' .github/workflows/*.yml | grep -vE 'uses:[[:space:]]*[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@v[0-9]+\.[0-9]+\.[0-9]+[[:space:]]*$' || true)
  [ -z "$bad" ] || { echo "not pinned by exact version tag:"; echo "$bad"; return 1; }
}
# repository paths named by the workflows and the scripts they run (matrix.service, $svc, $service: each service)
referenced_paths() {
  local files=(.github/workflows/*.yml ci/release/kind-e2e.sh ci/release/image-tags.sh) refs missing=() p s
  refs=$(grep -ohE '(^|[^A-Za-z0-9_./-])(operators|values|charts|ci|services|k6|docs)/[A-Za-z0-9._/${} -]*[A-Za-z0-9_}]' "${files[@]}" |
    sed -E 's/^[^A-Za-z]//; s/\$\{\{ *matrix\.service *\}\}/@SVC@/g; s/\$\{?(svc|service)\}?/@SVC@/g; s/ .*//' | sort -u)
  for p in operators/install.sh values/dev.yaml charts/newsfeed; do
    grep -qxF "$p" <<< "$refs" || missing+=("the e2e does not use $p")
  done
  while read -r p; do
    [[ $p == *'$'* ]] && continue   # other shell variables: not a fixed path
    for s in "${SERVICES[@]}"; do
      [ -e "${p//@SVC@/$s}" ] || missing+=("missing: ${p//@SVC@/$s}")
      [[ $p == *@SVC@* ]] || break
    done
  done <<< "$refs"
  [ -f charts/newsfeed/Chart.yaml ] || missing+=("charts/newsfeed is not a chart (no Chart.yaml)")
  [ ${#missing[@]} -eq 0 ] || { printf '%s\n' "${missing[@]}" | sort -u; return 1; }
}

for w in "${WORKFLOWS[@]}"; do
  f=.github/workflows/$w.yml
  if [ -f "$f" ]; then check "actionlint $f (shellcheck on; inputs at the pinned major)" actionlint_both "$f"
  else fail "workflow $f exists"; fi
done
check "workflows pin every action by exact version tag" pinned_actions
check "workflows and ci/release scripts reference only files that exist" referenced_paths

# ---------------------------------------------------------------- Dockerfiles
# jvm_flags FILE: the JVM of this machine accepts the ENTRYPOINT's options (a typo would stop every pod)
jvm_flags() {
  local args=() a flags=()
  mapfile -t args < <("$DFCHECK" entrypoint "$1")
  [ "${args[0]:-}" = java ] || { echo "ENTRYPOINT does not start java: ${args[*]}"; return 1; }
  for a in "${args[@]:1}"; do [ "$a" = -jar ] && break; flags+=("$a"); done
  java "${flags[@]}" -version
}
# rehearse FILE [NAME=VALUE...]: the build stages on this machine (Maven, ~/.m2) with those build arguments, then
# the jar the final stage copies must exist
rehearse() {
  local root=$TMP/rehearse file=$1; shift
  rm -rf "$root"; mkdir -p "$root"
  "$DFCHECK" rehearse services "$file" "$root" "$@"
  local rc=$?
  rm -rf "$root"
  return $rc
}
bad_dockerfile_rejected() {
  local f=ci/release/testdata/bad.Dockerfile out rule
  out=$("$HADOLINT" --no-color "$f" || true)
  for rule in DL3006 DL3007 DL3002 DL3025; do
    grep -q "$rule" <<< "$out" || { echo "hadolint missed $rule"; echo "$out"; return 1; }
  done
  if "$DFCHECK" lint "$f" > "$TMP/bad.out"; then echo "dockerfile-check passed a bad file"; return 1; fi
  if grep -q '^ok - ' "$TMP/bad.out"; then echo "dockerfile-check passed some checks of the bad file:"; cat "$TMP/bad.out"; return 1; fi
}

# the build stage refuses to start without SERVICE (its first RUN), before any Maven work
no_service_refused() {
  local out
  if out=$(rehearse "$DOCKERFILE" 2>&1); then echo "rehearsed without SERVICE"; return 1; fi
  grep -q '^build with --build-arg SERVICE=' <<< "$out" || { echo "no hint at --build-arg SERVICE:"; echo "$out"; return 1; }
  if grep -q 'RUN mvn' <<< "$out"; then echo "Maven ran without SERVICE"; return 1; fi
}

check "hadolint and dockerfile-check reject ci/release/testdata/bad.Dockerfile" bad_dockerfile_rejected
DOCKERFILE=services/Dockerfile
if [ -f "$DOCKERFILE" ]; then
  check "hadolint $DOCKERFILE" "$HADOLINT" --no-color "$DOCKERFILE"
  # one counted test per policy check of dockerfile-check
  while IFS= read -r line; do
    case "$line" in
      "ok - "*) ok "${line#ok - }" ;;
      "FAIL - "*) fail "${line#FAIL - }" ;;
    esac
  done < <("$DFCHECK" lint "$DOCKERFILE" || true)
  check "$DOCKERFILE: the JVM accepts the ENTRYPOINT flags" jvm_flags "$DOCKERFILE"
  check "$DOCKERFILE: without SERVICE the build stops with a hint" no_service_refused
  for svc in "${IMAGES[@]}"; do
    log "rehearsing the build stages of $DOCKERFILE for $svc (Maven)"
    check "$DOCKERFILE SERVICE=$svc: build stages rehearsed, they produce the jar the image copies" \
      rehearse "$DOCKERFILE" "SERVICE=$svc"
  done
else
  fail "$DOCKERFILE exists"
fi
stray=$(find services -name Dockerfile ! -path services/Dockerfile)
if [ -z "$stray" ]; then ok "one Dockerfile for every service"; else fail "one Dockerfile for every service (also: $stray)"; fi

# ---------------------------------------------------------------- one version
version=$(bash ci/release/app-version.sh 2>/dev/null || true)
if [ -n "$version" ]; then ok "charts/newsfeed/Chart.yaml has an appVersion ($version)"
else fail "charts/newsfeed/Chart.yaml has an appVersion"; fi
same() {  # same WHAT VALUE: VALUE is the chart's appVersion
  if [ -n "$version" ] && [ "$2" = "$version" ]; then ok "$1 = appVersion $version"
  else fail "$1 = appVersion ${version:-?} (it is '${2}')"; fi
}
same "charts/newsfeed-service/Chart.yaml appVersion" "$(bash ci/release/app-version.sh charts/newsfeed-service/Chart.yaml 2>/dev/null || true)"
same "services/pom.xml version" "$(sed -n '0,/<version>/s/.*<version>\([^<]*\)<\/version>.*/\1/p' services/pom.xml)"
same "services/Dockerfile ARG VERSION" "$("$DFCHECK" arg VERSION services/Dockerfile 2>/dev/null || true)"

# the tags images.yml pushes: appVersion and sha-<7>; a git tag other than v<appVersion> publishes nothing
image_tags() {
  local out want=ghcr.io/newsfeed-benchmark/newsfeed-inbound
  out=$(GITHUB_SHA=0123456789abcdef GITHUB_REF_TYPE=branch GITHUB_REF_NAME=main bash ci/release/image-tags.sh inbound) || return 1
  grep -qxF "tags=$want:$version,$want:sha-0123456" <<< "$out" || { echo "unexpected: $out"; return 1; }
  if GITHUB_SHA=0123456789abcdef GITHUB_REF_TYPE=tag GITHUB_REF_NAME=v0.0.0-not-the-chart bash ci/release/image-tags.sh inbound; then
    echo "accepted a git tag that is not v$version"; return 1
  fi
  GITHUB_SHA=0123456789abcdef GITHUB_REF_TYPE=tag GITHUB_REF_NAME="v$version" bash ci/release/image-tags.sh inbound >/dev/null
}
check "image-tags.sh: tags <appVersion> and sha-<7>, only v<appVersion> git tags publish" image_tags

# ---------------------------------------------------------------- the rendered chart
# rendered: `helm template` of a copy of charts/ with the dev profile and the image overrides of the kind e2e,
# into $TMP/rendered.yaml. Offline, like the charts suite: the copy drops the dependencies that only a remote
# chart repository serves (Bitnami redis, kafka) and renders without them.
rendered() {
  [ -f charts/newsfeed/Chart.yaml ] || { echo "no charts/newsfeed/Chart.yaml"; return 1; }
  [ -f "$VALUES" ] || { echo "no $VALUES"; return 1; }
  local dropped args=() d
  cp -rL charts "$TMP/charts"   # -L: files/k6 is a link to the repository's k6/
  dropped=$("$RELEASE_BIN/python" - "$TMP/charts/newsfeed/Chart.yaml" <<'PY'
import sys, yaml
path = sys.argv[1]
chart = yaml.safe_load(open(path))
deps = chart.get("dependencies") or []
chart["dependencies"] = [d for d in deps if str(d.get("repository", "")).startswith("file://")]
yaml.safe_dump(chart, open(path, "w"), sort_keys=False)
print(" ".join(d.get("alias") or d["name"] for d in deps if d not in chart["dependencies"]))
PY
  ) || return 1
  for d in $dropped; do args+=(--set "$d.enabled=false"); done
  # the dropped stores' external endpoints: the charts suite's file when there is one
  if [ -f ci/tests/charts/offline-values.yaml ]; then args+=(-f ci/tests/charts/offline-values.yaml)
  else args+=(--set externalRedis.host=redis.offline.invalid --set externalKafka.bootstrapServers=kafka.offline.invalid:9092); fi
  rm -f "$TMP/charts/newsfeed/Chart.lock"
  mapfile -t -O "${#args[@]}" args < <(bash ci/release/kind-e2e.sh helm-args)
  HELM_CONFIG_HOME=$TMP/helm HELM_CACHE_HOME=$TMP/helm HELM_DATA_HOME=$TMP/helm \
    "$BIN/helm" dependency update --skip-refresh "$TMP/charts/newsfeed" >/dev/null &&
    "$BIN/helm" template newsfeed "$TMP/charts/newsfeed" -n newsfeed -f "$VALUES" "${args[@]}" > "$TMP/rendered.yaml"
}
# what the kind e2e drives, and the images the chart runs
rendered_has() {
  local uid
  uid=$(sed -nE 's/^USER[[:space:]]+([0-9]+).*/\1/p' services/Dockerfile | sort -u | tr '\n' ' ')
  "$RELEASE_BIN/python" - "$TMP/rendered.yaml" "$version" "$uid" "${SERVICES[@]}" <<'PY'
import sys, yaml
path, version, uids, services = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4:]
docs = [d for d in yaml.safe_load_all(open(path)) if isinstance(d, dict)]
problems = []
kinds = {(d.get("kind"), d.get("metadata", {}).get("name")) for d in docs}
if ("CronJob", "newsfeed-k6-smoke") not in kinds:
    problems.append("no CronJob newsfeed-k6-smoke (kind-e2e.sh creates its smoke job from it)")
if not any("test" in (d.get("metadata", {}).get("annotations") or {}).get("helm.sh/hook", "") for d in docs):
    problems.append("no helm test hook (helm.sh/hook: test)")
rules = [r.get("record") for d in docs if d.get("kind") == "PrometheusRule"
         for g in d.get("spec", {}).get("groups", []) for r in g.get("rules", [])]
for name in ("service:newsfeed_http_server_requests:per_minute",
             "service:newsfeed_http_server_requests_seconds:histogram_quantile"):
    if name not in rules:
        problems.append(f"no PrometheusRule records {name}")
images = {}
for d in docs:
    spec = d.get("spec", {}).get("template", {}).get("spec", {}) if d.get("kind") == "Deployment" else {}
    for c in spec.get("containers", []):
        images[c.get("image", "")] = c.get("imagePullPolicy")
        # the uid the chart runs the images with is the one the Dockerfile creates
        run_as = (c.get("securityContext") or {}).get("runAsUser", (spec.get("securityContext") or {}).get("runAsUser"))
        if "ghcr.io/newsfeed-benchmark/" in c.get("image", "") and run_as is not None and [str(run_as)] != uids:
            problems.append(f"{c.get('image')}: runAsUser {run_as}, the Dockerfile's USER is {' '.join(uids)}")
for s in services:
    want = f"ghcr.io/newsfeed-benchmark/newsfeed-{s}:{version}"
    if want not in images:
        problems.append(f"no Deployment runs {want} (images: {sorted(i for i in images if 'newsfeed-' + s in i)})")
    elif images[want] != "Never":
        problems.append(f"{want}: imagePullPolicy {images[want]}, the e2e's override asks for Never (kind-loaded)")
# Prometheus must scrape the services and keep their own `service` label, which assert-recorded.sh selects by
# (without honorLabels the operator's target label `service` = the Kubernetes Service name replaces it)
monitors = [d for d in docs if d.get("kind") == "ServiceMonitor"]
for s in services:
    mine = [m for m in monitors if s in m.get("metadata", {}).get("name", "")]
    if not mine:
        problems.append(f"no ServiceMonitor for {s}")
    elif not all(e.get("honorLabels") is True for m in mine for e in m.get("spec", {}).get("endpoints", [])):
        problems.append(f"ServiceMonitor of {s} without honorLabels: true (its `service` label would be replaced)")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
}
check "helm template charts/newsfeed -f $VALUES + the e2e image overrides (Bitnami subcharts left out offline)" rendered
if [ "$checked" -eq 0 ]; then
  check "the chart has the k6 smoke CronJob, helm test hooks, recording rules, ServiceMonitors and the images of appVersion" rendered_has
else
  fail "the chart has the k6 smoke CronJob, helm test hooks, recording rules, ServiceMonitors and the images of appVersion (not rendered)"
fi

# ---------------------------------------------------------------- the Prometheus assertion of the kind e2e
RULES=charts/newsfeed/files/prometheus/newsfeed.rules.yml
recorded_names() {  # the series assert-recorded.sh queries are recorded by the rules file
  local n
  for n in $(grep -oE 'service:newsfeed_[a-z_]+:[a-z_0-9]+' ci/release/assert-recorded.sh | sort -u); do
    grep -qE "record:[[:space:]]*$n\$" "$RULES" || { echo "$RULES does not record $n"; return 1; }
  done
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# a real Prometheus with the rules file, scraping metrics_source.py every 2s
prometheus_up() {
  [ -x "$BIN/prometheus" ] || { echo "no $BIN/prometheus (bash ci/local/tools.sh go)"; return 1; }
  python3 ci/release/testdata/metrics_source.py "$TMP/source.port" & pids+=($!)
  local deadline=$((SECONDS + 10))
  until [ -s "$TMP/source.port" ]; do [ $SECONDS -lt $deadline ] || return 1; sleep 0.2; done
  PROM_PORT=$(free_port)
  cat > "$TMP/prometheus.yml" <<EOF
global: {scrape_interval: 2s}
rule_files: ["$PWD/$RULES"]
scrape_configs:
  - job_name: source
    static_configs: [{targets: ["127.0.0.1:$(cat "$TMP/source.port")"]}]
EOF
  "$BIN/prometheus" --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
    --web.listen-address="127.0.0.1:$PROM_PORT" > "$TMP/prometheus.log" 2>&1 & pids+=($!)
  deadline=$((SECONDS + 60))
  until curl -sf -m 2 -o /dev/null "http://127.0.0.1:$PROM_PORT/-/ready"; do
    [ $SECONDS -lt $deadline ] || { tail -n 20 "$TMP/prometheus.log"; return 1; }
    sleep 0.5
  done
}
probes_only_fail() {  # after the positive run the rules have been evaluated: the probe-only service must still fail
  if SERVICES=probe-only TIMEOUT=0 bash ci/release/assert-recorded.sh "http://127.0.0.1:$PROM_PORT"; then
    echo "passed on probes and scrapes alone"; return 1
  fi
}
check "ci/release/assert-recorded.sh queries series that $RULES records" recorded_names
log "Prometheus with the chart's rules over a synthetic API load (about a minute)"
check "a real Prometheus runs the chart's recording rules" prometheus_up
if [ "$checked" -eq 0 ]; then
  check "assert-recorded.sh: per-minute throughput and p95 of the four services" \
    env TIMEOUT=120 bash ci/release/assert-recorded.sh "http://127.0.0.1:$PROM_PORT"
  check "assert-recorded.sh fails when a service only served probes and scrapes" probes_only_fail
else
  fail "assert-recorded.sh: per-minute throughput and p95 of the four services (no Prometheus)"
  fail "assert-recorded.sh fails when a service only served probes and scrapes (no Prometheus)"
fi

# ---------------------------------------------------------------- registry-free service images
# The local node's service images (ci/local/cluster/images.sh: the machine's JDK, no base image) must carry the same
# user, workdir, entrypoint, env, ports and jar path as services/Dockerfile's runtime stage; a Dockerfile changed
# without the recipe (or the other way round) fails here. The checker must also see a planted drift.
service_jars() {
  local svc
  for svc in "${IMAGES[@]}"; do [ -f "services/$svc/target/$svc.jar" ] || { mvn -q -f services/pom.xml package -DskipTests; return; }; done
}
drift_seen() {
  sed -e 's/^USER 10001:10001/USER 10002:10002/' -e 's/^WORKDIR \/app/WORKDIR \/srv/' "$DOCKERFILE" > "$TMP/drift.Dockerfile"
  if python3 ci/local/cluster/check-image-config.py "$TMP/drift.Dockerfile" "$1" SERVICE=social-graph > "$TMP/drift.out"; then
    echo "no drift reported for a changed USER and WORKDIR"; cat "$TMP/drift.out"; return 1
  fi
  grep -c '^DRIFT - \(USER\|WORKDIR\)' "$TMP/drift.out" | grep -x 2 > /dev/null
}
# the runtime jlinked for those images (ci/local/cluster/images/jre.sh) holds every module the jars need (jdeps): a
# module missing is a class missing only when a pod starts; the same comparison must report a module taken out
jar_modules() {
  local svc jars=()
  for svc in "${IMAGES[@]}"; do jars+=("services/$svc/target/$svc.jar"); done
  # shellcheck source=ci/local/cluster/images/jre.sh
  (source ci/local/cluster/images/jre.sh && "$JDK_HOME/bin/jdeps" --print-module-deps --ignore-missing-deps \
    --multi-release 17 "${jars[@]}") | tail -n 1 | tr ',' '\n' | sort > "$TMP/modules.needed"
  [ -s "$TMP/modules.needed" ]
}
# runtime_has [LEAVE_OUT]: every needed module is in the runtime's `release` file (minus LEAVE_OUT, for the plant)
runtime_has() {
  local jre missing
  # shellcheck source=ci/local/cluster/images/jre.sh
  jre=$(IMAGES_CACHE=$CACHE/images; source ci/local/cluster/images/jre.sh && jre_dir) || return 1
  missing=$(comm -23 "$TMP/modules.needed" <(sed -n 's/^MODULES="\(.*\)"/\1/p' "$jre/release" | tr ' ' '\n' |
    grep -vx "${1:-}" | sort))
  echo "needed: $(tr '\n' ' ' < "$TMP/modules.needed")"
  [ -z "$missing" ] || { echo "missing from $jre: $missing"; return 1; }
}
modules_present() { jar_modules && runtime_has; }
# ci/bench/image-start.sh (docs/benchmarks.md) on one of those images: a row per archive variant, each answering
image_start_runs() {
  bash ci/bench/image-start.sh --cpu 1000 social-graph > "$TMP/image-start.md" || return 1
  cat "$TMP/image-start.md"
  [ "$(grep -cE '^\| social-graph \| 1000m \| (off|jdk|service) \| [0-9.]+ s \| [0-9.]+ \|$' "$TMP/image-start.md")" -eq 3 ]
}
jdk_httpserver_missed() { ! runtime_has jdk.httpserver > "$TMP/plant.out" && grep -q 'missing.*jdk.httpserver' "$TMP/plant.out"; }
log "building the registry-free service images (ci/local/cluster/images.sh)"
check "service jars for the local images (mvn package when missing)" service_jars
if [ "$checked" -eq 0 ] && images=$(bash ci/local/cluster/images.sh build "${IMAGES[@]}" 2> "$TMP/images.log"); then
  ok "ci/local/cluster/images.sh builds the ${#IMAGES[@]} images of $DOCKERFILE from the local JDK"
  while read -r ref archive; do
    svc=${ref#localhost/newsfeed-}; svc=${svc%%:*}
    check "$ref: user, workdir, entrypoint, env, ports and jar path equal $DOCKERFILE's runtime stage" \
      python3 ci/local/cluster/check-image-config.py "$DOCKERFILE" "$archive" "SERVICE=$svc"
  done <<< "$images"
  check "check-image-config.py reports a USER and WORKDIR drift" drift_seen "$(awk 'NR == 1 {print $2}' <<< "$images")"
  check "the images' runtime has every module the ${#IMAGES[@]} jars need (jdeps --print-module-deps)" modules_present
  check "that comparison reports jdk.httpserver (the lag exporter's) when the runtime lacks it" jdk_httpserver_missed
  check "ci/bench/image-start.sh --cpu 1000 social-graph: started without archives, with the JDK's, with the service's" \
    image_start_runs
else
  fail "ci/local/cluster/images.sh builds the ${#IMAGES[@]} images of $DOCKERFILE from the local JDK"; tail -n 20 "$TMP/images.log" | sed 's/^/    /'
fi

echo "release: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
