# Section "solr" of the cluster suite, sourced by ci/tests/cluster/chart.sh after the chart is installed (uses the
# suite's check, kcheck, kc, poll, note, WORK, node_image, cluster_prom, cluster_target_up and cluster_panels). The chart's
# Solr PodMonitor (solr.metrics.podMonitor with storeAuth.solr: Basic auth as the operator's k8s-oper user) is rendered and applied
# in a namespace of its own, beside what the Solr Operator would run for that SolrCloud: a StatefulSet of a real
# Solr (ci/tests/cluster/solr-cloud.yaml, image localhost/newsfeed-solr) with the operator's pod labels and port
# name, the basic-auth Secret and the bootstrapped security.json, in the operator's shape and names. Solr refuses
# its metrics without the login; the in-cluster Prometheus scrapes them with it (target up), Solr's own core series
# come labelled with the namespace, and the stores dashboard's Solr panels have data. Not the operator itself: the
# Solr Operator runs the official `solr` image, whose distribution this machine cannot fetch.
# Sourcing it applies the PodMonitor first and sets Solr up; the scrape checks are solr_scraped, which chart.sh calls
# after its other sections: Prometheus' config reloader reads a change after its first only every 3 minutes, and
# they run while it waits.
# shellcheck shell=bash

SOLR_NS=solr-test
SOLR_CLOUD=newsfeed-solr   # newsfeed.solr.cloudName of release newsfeed
solr_t0=$SECONDS

# the chart's PodMonitor alone, from an offline copy of the chart (no Bitnami dependency to fetch)
solr_podmonitor() {
  local chart
  chart=$(bash ci/local/cluster/offline-chart.sh "$WORK/solr-chart") &&
    helm template newsfeed "$chart" -n "$SOLR_NS" --set solr.enabled=true --set solr.metrics.podMonitor.enabled=true \
      --set storeAuth.enabled=true --set storeAuth.solr.enabled=true \
      --show-only templates/monitoring/solr-podmonitor.yaml > "$WORK/solr-podmonitor.yaml" &&
    grep -q "name: $SOLR_CLOUD-solrcloud-basic-auth" "$WORK/solr-podmonitor.yaml" &&
    kc -n "$SOLR_NS" apply -f "$WORK/solr-podmonitor.yaml"
}
# the operator's Secrets: <cloud>-solrcloud-basic-auth (kubernetes.io/basic-auth, user k8s-oper) and
# <cloud>-solrcloud-security-bootstrap (the users' passwords and security.json with their salted hashes)
solr_secrets() {
  local dir=$WORK/solr-secrets
  mkdir -p "$dir" && chmod 700 "$dir" &&
    PYTHONPATH=ci/local/stack/solr python3 - "$dir" <<'PY' &&
import json, os, secrets, sys
from password_hash import solr_hash
out = sys.argv[1]
passwords = {u: secrets.token_urlsafe(12) for u in ("admin", "k8s-oper", "solr")}
probe = [{"name": f"k8s-probe-{i}", "role": None, "collection": None, "path": p}
         for i, p in enumerate(["/admin/info/system", "/admin/info/health"])]
k8s = [{"name": "k8s-status", "role": "k8s", "collection": None, "path": "/admin/collections"},
       {"name": "k8s-metrics", "role": "k8s", "collection": None, "path": "/admin/metrics"},
       {"name": "k8s-zk", "role": "k8s", "collection": None, "path": "/admin/zookeeper/status"},
       {"name": "k8s-ping", "role": "k8s", "collection": "*", "path": "/admin/ping"},
       {"name": "k8s-replica-balancing", "role": "k8s", "collection": None, "path": "/____v2/cluster/replicas/balance"},
       {"name": "collection-admin-edit", "role": "k8s"}]
rest = [{"name": "read", "role": ["admin", "users", "k8s"]}, {"name": "update", "role": ["admin"]},
        {"name": "security-read", "role": ["admin"]}, {"name": "security-edit", "role": ["admin"]},
        {"name": "all", "role": ["admin"]}]
security = {
    "authentication": {"blockUnknown": False, "class": "solr.BasicAuthPlugin", "realm": "Solr Basic Auth",
                       "forwardCredentials": False,
                       "credentials": {u: solr_hash(p) for u, p in passwords.items()}},
    "authorization": {"class": "solr.RuleBasedAuthorizationPlugin",
                      "user-role": {"admin": ["admin", "k8s"], "k8s-oper": ["k8s"], "solr": ["users", "k8s"]},
                      "permissions": probe + k8s + rest}}
for name, value in [("security.json", json.dumps(security)), *passwords.items()]:
    with open(os.path.join(out, name), "w") as f:
        f.write(value)
PY
    kc -n "$SOLR_NS" create secret generic "$SOLR_CLOUD-solrcloud-basic-auth" --type=kubernetes.io/basic-auth \
      --from-literal=username=k8s-oper --from-file=password="$dir/k8s-oper" &&
    kc -n "$SOLR_NS" create secret generic "$SOLR_CLOUD-solrcloud-security-bootstrap" \
      --from-file="$dir/security.json" --from-file="$dir/admin" --from-file="$dir/solr"
}
solr_pod_ready() {
  kc -n "$SOLR_NS" create configmap "$SOLR_CLOUD-configset" --from-file=charts/newsfeed/files/schema/solr/conf &&
    sed -e "s|@CLOUD@|$SOLR_CLOUD|g" -e "s|@SOLR_IMAGE@|${SOLR_REF_TAR%% *}|g" ci/tests/cluster/solr-cloud.yaml |
    kc -n "$SOLR_NS" apply -f - &&
    kc -n "$SOLR_NS" rollout status "statefulset/$SOLR_CLOUD-solrcloud" --timeout=180s
}
solr_pod_url() {
  echo "http://$(kc -n "$SOLR_NS" get pod "$SOLR_CLOUD-solrcloud-0" -o jsonpath='{.status.podIP}'):8983/solr"
}
# solr_as USER CURL_ARGS...: curl as a user of the bootstrapped security.json (its login through a config on a pipe)
solr_as() {
  local user=$1; shift
  curl -K <(printf 'user = "%s:%s"\n' "$user" "$(cat "$WORK/solr-secrets/$user")") "$@"
}
# without a login /admin/metrics is refused (so a target up scraped with the PodMonitor's login), with k8s-oper's
# answered, and k8s-oper may not write
solr_auth_in_force() {
  local url; url=$(solr_pod_url)
  [ "$(curl -s -o /dev/null -w '%{http_code}' -m 10 "$url/admin/metrics?wt=prometheus")" = 401 ] &&
    solr_as k8s-oper -sf -m 10 "$url/admin/metrics?wt=prometheus" | grep -c '^solr_metrics_core_' &&
    [ "$(solr_as k8s-oper -s -o /dev/null -w '%{http_code}' -m 10 -H 'Content-Type: application/json' \
      -d '[{"id": "x", "participant_id": 1}]' "$url/outbound/update")" = 403 ]
}
# three documents (as the admin) and a few searches, so the core's counters and document count move
solr_traffic() {
  local url _; url=$(solr_pod_url)
  solr_as admin -sf -m 10 -H 'Content-Type: application/json' "$url/outbound/update?commit=true" -d '[
    {"id": "solr-test-1", "participant_id": 1, "subject": "cluster", "story": "scraped by its PodMonitor"},
    {"id": "solr-test-2", "participant_id": 2, "subject": "cluster", "story": "labelled as the operator labels it"},
    {"id": "solr-test-3", "participant_id": 3, "subject": "cluster", "story": "with the login of k8s-oper"}]' &&
    for _ in 1 2 3 4 5; do solr_as admin -sf -m 10 "$url/outbound/select?q=story:cluster" > /dev/null || return 1; done
}
solr_documents() {
  local sel="namespace=\"$SOLR_NS\", core=\"outbound\", type=\"numDocs\""
  cluster_prom query "query=sum(solr_metrics_core_searcher_documents{$sel})" |
    tee /dev/stderr | jq -e '(.data.result[0].value[1] | tonumber) == 3'
}

kc create namespace "$SOLR_NS" >/dev/null 2>&1 || true
SOLR_REF_TAR=$(node_image solr 2> "$WORK/solr-image.log" || true)
check "the Solr image (ci/local/cluster/images.sh build solr) imported" \
  bash ci/local/cluster.sh import "${SOLR_REF_TAR#* }"
check "the chart's Solr PodMonitor (storeAuth.solr: Basic auth from $SOLR_CLOUD-solrcloud-basic-auth) applied" \
  solr_podmonitor
check "the Solr Operator's Secrets for $SOLR_CLOUD: basic-auth (k8s-oper) and security bootstrap" solr_secrets
solr_t=$SECONDS
kcheck "a Solr pod as the operator runs it (labels solr-cloud, technology; port solr-client) ready" solr_pod_ready
note "the Solr pod ready $((SECONDS - solr_t)) s after it was applied"
check "Solr refuses /admin/metrics without a login (401), answers k8s-oper, refuses its writes (403)" solr_auth_in_force
check "three documents indexed and five searches, as Solr's admin" solr_traffic
note "solr set up in $((SECONDS - solr_t0)) s"

# (the operator rewrites Prometheus' config Secret at once, the kubelet syncs it within 10 s, but the reloader reads
# a change after its first only every 3 minutes)
solr_scraped() {
  local t=$SECONDS
  kcheck "its PodMonitor: the in-cluster Prometheus scrapes Solr with k8s-oper's login (target up)" poll 210 \
    cluster_target_up "podMonitor/$SOLR_NS/$SOLR_CLOUD/0"
  check "solr_metrics_core_searcher_documents{type=\"numDocs\"} of core outbound in namespace $SOLR_NS = 3" \
    poll 60 solr_documents
  check "the stores dashboard's Solr panels have data in the in-cluster Prometheus" cluster_panels '^Solr'
  kc delete namespace "$SOLR_NS" --wait --timeout=120s >/dev/null 2>&1 || true
  rm -rf "$WORK/solr-secrets"
  note "solr's scrape checks took $((SECONDS - t)) s"
}
