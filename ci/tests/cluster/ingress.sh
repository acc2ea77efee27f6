# Section "ingress" of the cluster suite, sourced by ci/tests/cluster/chart.sh on the release `make cluster-demo` left
# running (release newsfeed in $RELEASE_NS, installed with ci/local/cluster/ingress/values.yaml); uses the
# suite's check, kcheck, note, poll, kc and WORK. Traefik (ci/local/cluster/ingress.sh) is ready, and the classic
# API answers through the chart's Ingress from this machine (ci/local/cluster/api-check.sh with the Ingress host
# resolved to the controller's ClusterIP: participants, a friendship, a post, the friend's inbound, a keyword
# search, edge's GraphQL on /graphql), the classic client's form creates and a GraphQL mutation on /, the classic
# load client's sequence in its three modes (services/e2e ClassicClientIT), plus GET /participant/{id}, a foreign
# Host's 404, Traefik's access log naming each route's service, and `helm test` with the chart's gateway test. The
# release goes back without the Ingress and the controller is removed.
# shellcheck shell=bash

ING_NS=$RELEASE_NS
ING_HOST=traefik.ingress.svc.cluster.local
ing_t0=$SECONDS
ing_helm() { HELM_CONFIG_HOME=$WORK/ingress-chart/.helm/config HELM_CACHE_HOME=$WORK/ingress-chart/.helm/cache \
  HELM_DATA_HOME=$WORK/ingress-chart/.helm/data helm --kubeconfig "$KUBECONFIG" "$@"; }
ing_upgrade() {
  local chart; chart=$(bash ci/local/cluster/offline-chart.sh "$WORK/ingress-chart") &&
    ing_helm upgrade newsfeed "$chart" -n "$ING_NS" --reuse-values "$@" --wait --timeout 5m
}
# curl through the Ingress from this machine: the host name resolved to the controller's ClusterIP, as a pod's
# DNS would; a curlrc (CURL_HOME) does the same for ci/local/cluster/api-check.sh's plain curl calls
ing_curl() { curl --resolve "$ING_HOST:80:$ING_IP" -sS --max-time 10 "$@"; }
ing_curlrc() { mkdir -p "$WORK/ingress-curl" && echo "resolve = $ING_HOST:80:$ING_IP" > "$WORK/ingress-curl/.curlrc"; }
ing_api() {
  ing_curlrc && CURL_HOME=$WORK/ingress-curl SOCIAL_GRAPH_URL=http://$ING_HOST OUTBOUND_URL=http://$ING_HOST \
    INBOUND_URL=http://$ING_HOST SEARCH_URL=http://$ING_HOST EDGE_URL=http://$ING_HOST sh ci/local/cluster/api-check.sh
}
# the classic load client's default mode through the Ingress: creates as form params (200 and the Location of the
# new participant), then a GraphQL mutation POSTed to the root path, as its USE_GRAPHQL=true mode sends it
ing_classic_form() {
  local headers id
  headers=$(ing_curl -f -o /dev/null -D - -X POST -H 'Content-Type: application/x-www-form-urlencoded' \
    --data 'name=Form+Ingrid' "http://$ING_HOST/participant") && echo "$headers" &&
    echo "$headers" | grep '^HTTP/1.1 200' > /dev/null &&
    id=$(echo "$headers" | tr -d '\r' | sed -n 's|^[Ll]ocation: */participant/\([0-9][0-9]*\)$|\1|p') && [ -n "$id" ] &&
    ing_curl -f "http://$ING_HOST/participant/$id" | tee /dev/stderr | grep '"name":"Form Ingrid"' > /dev/null &&
    ing_curl -f -X POST -H 'Content-Type: application/json' \
      -d '{"query":"mutation { createParticipant(input: {name: \"Graph Ingrid\"}) { id name } }"}' "http://$ING_HOST/" |
      tee /dev/stderr | grep '"name":"Graph Ingrid"' > /dev/null
}
# the classic load client's whole request sequence in JSON, form and GraphQL mode with its integration test's
# assertions (services/e2e ClassicClientIT), through the Ingress: Traefik's address, the Ingress host as Host
ing_classic_replay() {
  GATEWAY_URL=http://$ING_IP GATEWAY_HOST=$ING_HOST mvn -B -q -f services/e2e/pom.xml verify \
    -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=ClassicClientIT -Dfailsafe.failIfNoSpecifiedTests=false &&
    [ "$(grep -ho 'tests="[0-9]*"' services/e2e/target/failsafe-reports/TEST-newsfeed.e2e.ClassicClientIT.xml)" != 'tests="0"' ]
}
ing_get_participant() {
  local id
  id=$(ing_curl -f -X POST -H 'Content-Type: application/json' -d '{"name":"Ingrid"}' "http://$ING_HOST/participant" |
    sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p') && [ -n "$id" ] &&
    ing_curl -f "http://$ING_HOST/participant/$id" | tee /dev/stderr | grep '"name":"Ingrid"' > /dev/null
}
ing_foreign_host() { [ "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' -H 'Host: other.example' "http://$ING_IP/participant")" = 404 ]; }
# every request of each route's shape reached that route's Service, none another: Traefik's JSON access log
# names the Kubernetes Service each request went to. ing_routed's probes are left out: until Traefik has turned
# the Ingress into routers it answers them 404 itself, with no Service
ing_routes_logged() {
  kc -n ingress logs deploy/traefik --tail=1000 | grep '^{' | jq -s -r --arg probe "$ING_PROBE" '
    map(select(.RequestPath != $probe)) |
    def to($m; $p): [.[] | select(.RequestMethod == $m and (.RequestPath | test($p))) | .KubernetesServiceName] | unique;
    [ ["POST /participant", to("POST"; "^/participant$"), "newsfeed-social-graph"],
      ["GET /participant/{id}", to("GET"; "^/participant/[0-9]+$"), "newsfeed-social-graph"],
      ["POST /participant/{id}/friends", to("POST"; "^/participant/[0-9]+/friends$"), "newsfeed-social-graph"],
      ["GET /participant/{id}/friends", to("GET"; "^/participant/[0-9]+/friends$"), "newsfeed-social-graph"],
      ["POST /participant/{id}/outbound", to("POST"; "^/participant/[0-9]+/outbound$"), "newsfeed-outbound"],
      ["GET /participant/{id}/outbound", to("GET"; "^/participant/[0-9]+/outbound$"), "newsfeed-outbound"],
      ["GET /participant/{id}/inbound", to("GET"; "^/participant/[0-9]+/inbound$"), "newsfeed-inbound"],
      ["GET /outbound?keywords=", to("GET"; "^/outbound[?]keywords="), "newsfeed-search"],
      ["POST / (GraphQL)", to("POST"; "^/$"), "newsfeed-edge"],
      ["POST /graphql", to("POST"; "^/graphql$"), "newsfeed-edge"] ]
    | .[] | "\(if .[1] == [.[2]] then "ok" else "WRONG" end) \(.[0]) -> \(.[1] | join(","))"' | tee /dev/stderr |
    { ! grep -v '^ok '; }
}
ing_helm_test() {
  ing_helm test newsfeed -n "$ING_NS" --timeout 3m | tee /dev/stderr |
    grep -A3 'TEST SUITE: *newsfeed-test-gateway' | grep 'Phase: *Succeeded' > /dev/null
}
# Traefik is Ready before its provider has turned the Ingress into routers: until then it answers 404 itself
ING_PROBE='/outbound?keywords=ingress-probe'
ing_routed() { [ "$(ing_curl -o /dev/null -w '%{http_code}' "http://$ING_HOST$ING_PROBE")" = 200 ]; }
ing_no_ingress() { ! kc -n "$ING_NS" get ingress newsfeed-api 2>/dev/null; }

check "ingress: bash ci/local/tools.sh ingress (Traefik and its image, cached)" bash ci/local/tools.sh ingress
# the demo brought Traefik up and installed the release with ci/local/cluster/ingress/values.yaml
kcheck "ingress: ci/local/cluster/ingress.sh status (Traefik ready, IngressClass nginx)" bash ci/local/cluster/ingress.sh status
ING_IP=$(kc -n ingress get service traefik -o jsonpath='{.spec.clusterIP}' 2>/dev/null || true)
kcheck "ingress: Traefik publishes its ClusterIP in the Ingress status" poll 60 bash -c \
  "[ \"\$(kubectl --kubeconfig '$KUBECONFIG' -n $ING_NS get ingress newsfeed-api -o jsonpath='{.status.loadBalancer.ingress[0].ip}')\" = '$ING_IP' ]"
t=$SECONDS
kcheck "ingress: Traefik routes the Ingress (GET /outbound?keywords= is 200)" poll 60 ing_routed
note "ingress: routes live $((SECONDS - t)) s after the status"
kcheck "ingress: the classic API through the Ingress (participants, friends, post, inbound, search, GraphQL)" ing_api
kcheck "ingress: classic form creates (200, Location) and a GraphQL mutation on / through the Ingress" ing_classic_form
t=$SECONDS
kcheck "ingress: the classic load client's sequence in JSON, form and GraphQL mode (ClassicClientIT) through the Ingress" \
  ing_classic_replay
note "ingress: the classic replay took $((SECONDS - t)) s"
kcheck "ingress: GET /participant/{id} through the Ingress" ing_get_participant
kcheck "ingress: a foreign Host is not routed (404)" ing_foreign_host
kcheck "ingress: Traefik's access log names each route's service" ing_routes_logged
kcheck "ingress: helm test (health and the gateway test through the Ingress host)" ing_helm_test
kcheck "ingress: helm upgrade back without the Ingress" ing_upgrade --set ingress.enabled=false
check "ingress: the Ingress is gone" ing_no_ingress
kcheck "ingress: ci/local/cluster/ingress.sh down" bash ci/local/cluster/ingress.sh down
check "ingress: namespace, IngressClass and RBAC removed" bash -c \
  "! kubectl --kubeconfig '$KUBECONFIG' get namespace ingress 2>/dev/null && [ -z \"\$(kubectl --kubeconfig '$KUBECONFIG' get ingressclass,clusterrole,clusterrolebinding -l app.kubernetes.io/part-of=newsfeed-ingress -o name)\" ]"
note "ingress: section took $((SECONDS - ing_t0)) s"
