#!/bin/sh
# api-check.sh: the classic API through the chart's Services, from a pod of the local node (ci/local/cluster/install.sh
# runs it in the curl image, busybox sh): two participants, a friendship, a post, then the post in the friend's
# inbound (Kafka -> inbound -> Cassandra) and found by keyword search (Kafka -> search -> Solr).
# Environment: SOCIAL_GRAPH_URL OUTBOUND_URL INBOUND_URL SEARCH_URL, optionally EDGE_URL (the Services' in-cluster URLs).
set -eu
word=node$(date +%s)
fail() { echo "FAIL - $*"; exit 1; }
# call METHOD URL [JSON]: the body, failing on a non-2xx status
call() {
  if [ -n "${3:-}" ]; then
    curl -fsS --max-time 10 -X "$1" -H 'Content-Type: application/json' -d "$3" "$2"
  else
    curl -fsS --max-time 10 "$2"
  fi
}
id_of() { sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p'; }

a=$(call POST "$SOCIAL_GRAPH_URL/participant" '{"name":"Ada"}' | id_of) || fail "POST /participant"
b=$(call POST "$SOCIAL_GRAPH_URL/participant" '{"name":"Bob"}' | id_of) || fail "POST /participant"
[ -n "$a" ] && [ -n "$b" ] || fail "POST /participant answered no id"
echo "ok - social-graph: participants $a and $b"
call POST "$SOCIAL_GRAPH_URL/participant/$a/friends" "{\"from\":\"/participant/$a\",\"to\":\"/participant/$b\"}" >/dev/null ||
  fail "POST /participant/$a/friends"
call GET "$SOCIAL_GRAPH_URL/participant/$b/friends" | grep "/participant/$a" > /dev/null || fail "GET /participant/$b/friends lacks $a"
echo "ok - social-graph: $a and $b are friends"
call POST "$OUTBOUND_URL/participant/$a/outbound" \
  "{\"from\":\"/participant/$a\",\"subject\":\"hello $word\",\"story\":\"posted from a pod of the $word cluster\"}" >/dev/null ||
  fail "POST /participant/$a/outbound"
call GET "$OUTBOUND_URL/participant/$a/outbound" | grep "$word" > /dev/null || fail "the post is not in $a's outbound"
echo "ok - outbound: the post is stored"
# fan-out and indexing are asynchronous: poll URL until its body has PATTERN, for up to a minute
poll() {
  i=0
  until call GET "$1" 2>/dev/null | grep "$2" > /dev/null; do
    i=$((i + 1)); [ "$i" -lt 60 ] || return 1; sleep 1
  done
}
poll "$INBOUND_URL/participant/$b/inbound" "$word" || fail "the post did not reach $b's inbound within 60 s"
echo "ok - inbound: the post reached friend $b's feed"
# a keyword search answers the posters' links (the classic API)
poll "$SEARCH_URL/outbound?keywords=$word" "\"/participant/$a\"" || fail "the post is not found by keyword within 60 s"
echo "ok - search: the post's keyword finds its poster $a"
# the GraphQL API of edge (when EDGE_URL is given), resolved by the four Services above
if [ -n "${EDGE_URL:-}" ]; then
  q="{\"query\":\"query { participant(id: $b) { name, friends { id }, inbound { subject } } }\"}"
  body=$(call POST "$EDGE_URL/graphql" "$q") || fail "POST $EDGE_URL/graphql"
  case "$body" in
    *'"name":"Bob"'*"{\"id\":\"$a\"}"*"hello $word"*) echo "ok - edge: GraphQL answers $b's name, friends and inbound" ;;
    *) fail "edge: GraphQL answered $body" ;;
  esac
fi
