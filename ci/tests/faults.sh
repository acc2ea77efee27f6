#!/usr/bin/env bash
# Suite "faults": store outages and a killed instance under a steady stream of posts, then proof that no
# acknowledged post was lost or duplicated.
#
# Always starts its OWN stack (it stops stores; a shared NEWSFEED_STACK_ENV is ignored) in a fresh run dir,
# the services with two inbound instances, a seeded graph (ci/tests/faults/seed.py), and the ledger
# (ci/tests/faults/ledger.py: FAULTS_RATE posts/s, each with an Idempotency-Key and retried with it after an error for
# up to 45 s, every outcome recorded). Then, one after the other: Kafka, Redis,
# Cassandra and Solr stopped and started again (ci/local/stack.sh stop-store/start-store), inbound-2 killed -9
# and restarted, PostgreSQL stopped, Kafka, PostgreSQL, Redis and Solr killed -9 (ci/local/stack.sh kill-store: Cassandra
# is not, docs/reliability.md), the only outbound, search and
# social-graph instances killed -9 and restarted, outbound killed -9 again while its publishes wait for a black-holed
# Kafka (posts left half-done: its reconciler must publish them); Kafka and Cassandra unreachable with their packets dropped on
# loopback (ci/tests/faults/inject.sh, iptables: only their answers, so a write is done but its answer lost; then
# both ways, a partition), Cassandra slow (paused most of the time), the answers of writes PostgreSQL did lost in a relay
# (ci/tests/faults/pg_relay.py) under a ledger of participant creates and befriends (ci/tests/faults/graph_ledger.py,
# checked against PostgreSQL by ci/tests/faults/graph_verify.py: none answered 503 is stored), Redis filled past its memory limit (it must
# evict, never refuse a write, and serve current pages), and a consumer-group rebalance under load
# (inbound scaled to 3 and back to 2); then forged events no consumer can process (ci/tests/faults/poison.sh) must land
# in both groups' dead-letter topics while the partitions go on, and a replay (`make dead-letters ACTION=replay`)
# must give them back to one group only. Needs root (iptables, signals to the stores). While each fault lasts ci/tests/faults/probe.py checks that the services stay live, answer 503 JSON
# where the missing store is needed, keep serving what does not need it, and report not ready; after each
# restart it times the recovery (ready, a new post acknowledged, fanned out, searchable). Finally
# ci/tests/faults/verify.py checks every acknowledged post in its poster's outbound, exactly once in every friend's
# inbound, and in search, and no post answered 503 at every attempt anywhere (outbound, inbound, search);
# ci/tests/faults/report.py writes report.json + report.md into $NEWSFEED_RUN/faults.
#
# Environment: NEWSFEED_PORT_OFFSET (default 1600), FAULTS_RATE (posts/s, default 20), FAULTS_POSTERS (30),
# FAULTS_RECOVER_TIMEOUT (s, default 120), FAULTS_NOISE_RATE (k6 social load alongside, requests/s; default 0
# = off: on 2 cores it mostly slows the stores' restarts down), FAULTS_KEEP_RUN=1 keeps the whole run dir.
# Last line: `faults: N passed, N failed`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SUITE=faults
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-1600}
NEWSFEED_RUN=$(mktemp -d /tmp/newsfeed-faults.XXXXXX)
export NEWSFEED_RUN
unset NEWSFEED_STACK_ENV
export SERVICE_INSTANCES=${SERVICE_INSTANCES:-inbound=2}
# outbound's reconciler at its shortest, so the posts a crash leaves half-done are made whole within the suite
export SERVICE_ENV=${SERVICE_ENV:-OUTBOUND_RECONCILE_AFTER_SECONDS=30}
RATE=${FAULTS_RATE:-20}
POSTERS=${FAULTS_POSTERS:-30}
RECOVER_TIMEOUT=${FAULTS_RECOVER_TIMEOUT:-120}
NOISE_RATE=${FAULTS_NOISE_RATE:-0}
OUT=$NEWSFEED_RUN/faults
GRAPH=$OUT/graph.json
passed=0 failed=0 ledger_pid="" noise_pid="" graph_pid="" relay_pid=""
suite_start=$SECONDS
log() { echo "[faults $(date +%T)] $*" >&2; }
# shellcheck source=ci/tests/lib/maven.sh
source ci/tests/lib/maven.sh
# shellcheck source=ci/tests/lib/system.sh
source ci/tests/lib/system.sh

cleanup() {
  local rc=$?
  if [ -n "$ledger_pid" ]; then kill "$ledger_pid" 2>/dev/null || true; wait "$ledger_pid" 2>/dev/null || true; fi
  if [ -n "$graph_pid" ]; then kill "$graph_pid" 2>/dev/null || true; wait "$graph_pid" 2>/dev/null || true; fi
  if [ -n "$relay_pid" ]; then kill "$relay_pid" 2>/dev/null || true; wait "$relay_pid" 2>/dev/null || true; fi
  if [ -n "$noise_pid" ]; then kill -- "-$noise_pid" 2>/dev/null || true; wait "$noise_pid" 2>/dev/null || true; fi
  bash ci/tests/faults/inject.sh clear || log "ci/tests/faults/inject.sh clear failed: check iptables -S and the stores"
  system_down
  if [ "$failed" -eq 0 ] && [ "$rc" -eq 0 ] && [ "${FAULTS_KEEP_RUN:-0}" != 1 ]; then
    # the stores' data and the services' copies of the jars (170 MB); the report and the logs stay
    rm -rf "$NEWSFEED_RUN/stack" "$NEWSFEED_RUN/services/jars"
  fi
  log "report and logs in $NEWSFEED_RUN (faults/report.md, services/logs, stack/logs)"
}
trap cleanup EXIT

check() {
  local name=$1; shift
  if "$@" >&2; then passed=$((passed + 1)); echo "ok - $name"; else failed=$((failed + 1)); echo "FAIL - $name"; fi
}

# Runs a driver that prints its own ok/FAIL lines and adds them to the counts; a driver that fails without
# a FAIL line (a crash) counts as one failure.
# shellcheck source=ci/tests/lib/counted.sh
source ci/tests/lib/counted.sh

event() { printf '{"fault":"%s","event":"%s","t":%s}\n' "$1" "$2" "$(date +%s.%N)" >> "$OUT/timeline.jsonl"; }

# every instance as name=url, for the probes' health checks
instances() {
  local svc i port
  for svc in social-graph outbound inbound search; do
    i=0
    for port in $(bash ci/local/services.sh ports "$svc"); do
      i=$((i + 1)); printf '%s-%s=http://127.0.0.1:%s ' "$svc" "$i" "$port"
    done
  done
}

# fault NAME MIN_DOWN STOP_CMD... -- START_CMD...: one outage, probed while it lasts, then the timed recovery
fault() {
  local name=$1 min_down=$2; shift 2
  local stop=() start=()
  while [ "$1" != -- ]; do stop+=("$1"); shift; done
  shift; start=("$@")
  log "fault $name: ${stop[*]}"
  event "$name" stop
  check "$name: ${stop[*]}" "${stop[@]}"
  event "$name" stopped
  local down_at=$SECONDS
  counted "$name probes" python3 ci/tests/faults/probe.py down "$name" "$GRAPH" "$OUT"
  local rest=$((min_down - (SECONDS - down_at)))
  if [ "$rest" -gt 0 ]; then sleep "$rest"; fi
  log "fault $name: ${start[*]}"
  event "$name" start
  local since; since=$(date +%s.%N)
  check "$name: ${start[*]}" "${start[@]}"
  event "$name" started
  counted "$name recovery" python3 ci/tests/faults/probe.py recover "$name" "$GRAPH" "$OUT" --since "$since" \
    --timeout "$RECOVER_TIMEOUT"
}

# every key of the file is listed by `make dead-letters SERVICE=$1` at least $2 times (within 60 s)
dead_lettered() {
  local svc=$1 times=$2 keys=$3 deadline=$((SECONDS + 60)) listed key ok
  while :; do
    listed=$(make -s dead-letters SERVICE="$svc" 2>/dev/null) || listed=""
    ok=true
    while read -r key; do
      [ "$(grep -c "\"key\":\"$key\"" <<< "$listed")" -ge "$times" ] || ok=false
    done < "$keys"
    $ok && return 0
    [ "$SECONDS" -lt "$deadline" ] || { echo "$svc lists: $listed" >&2; return 1; }
    sleep 3
  done
}

# inbound lists every key exactly once: it skipped the replayed copies meant for search (given a few seconds to
# pass them: search has dead-lettered them again by now, at the same offsets)
dead_lettered_once() {
  local listed key; sleep 5
  listed=$(make -s dead-letters SERVICE="$1" 2>/dev/null) || return 1
  while read -r key; do
    [ "$(grep -c "\"key\":\"$key\"" <<< "$listed")" -eq 1 ] || { echo "$1 lists: $listed" >&2; return 1; }
  done < "$2"
}

# each instance of inbound and search answers /health/events 200: the poison did not stall a consumer
events_healthy() {
  local svc port
  for svc in inbound search; do
    for port in $(bash ci/local/services.sh ports "$svc"); do
      curl -sf -m 5 -o /dev/null "http://127.0.0.1:$port/health/events" || { echo "$svc on $port" >&2; return 1; }
    done
  done
}

# nothing in either dead-letter topic: a store outage is transient and must never dead-letter an event
dead_letters_empty() {
  local svc listed
  for svc in inbound search; do
    listed=$(make -s dead-letters SERVICE="$svc") || return 1
    [ -z "$listed" ] || { echo "$svc dead-lettered: $listed" >&2; return 1; }
  done
}

replayed() {
  local out; out=$(make -s dead-letters SERVICE="$1" ACTION=replay)
  echo "$out" >&2
  grep -q "^replayed $2 records from" <<< "$out"
}

# poison: forged events under the ledger's load; each group dead-letters them and goes on, a replay is one group's
poison() {
  local keys=$OUT/poison.keys n=3
  check "no event dead-lettered during the store outages" dead_letters_empty
  event poison stop
  check "poison: $n forged events published" bash -c "bash ci/tests/faults/poison.sh $n > '$keys'"
  check "poison: inbound dead-lettered every forged event" dead_lettered inbound 1 "$keys"
  check "poison: search dead-lettered every forged event" dead_lettered search 1 "$keys"
  check "poison: every consumer healthy on /health/events" events_healthy
  check "poison: make dead-letters SERVICE=search ACTION=replay replays $n" replayed search "$n"
  # still forged, so search dead-letters the copies again; inbound, not their group, skips them
  check "poison: search dead-lettered the replayed copies again" dead_lettered search 2 "$keys"
  check "poison: inbound did not take search's replay" dead_lettered_once inbound "$keys"
  event poison started
}

# a crash between posts' rows and their events: outbound killed -9 while every publish waits for a black-holed Kafka,
# so the posts in flight are in its poster's outbound and nowhere else; the restarted instance's reconciler must
# publish them (verify.py: no post never answered stays an orphan)
crash_mid_post() {
  bash ci/tests/faults/inject.sh blackhole kafka && sleep 3 && bash ci/local/services.sh kill outbound-1 \
    && bash ci/tests/faults/inject.sh clear
}

# the sum of a counter over every instance of a service (its /metrics), e.g. `counter outbound 'name{labels}'`
counter() {
  local port sum=0 v
  for port in $(bash ci/local/services.sh ports "$1"); do
    v=$(curl -sf -m 5 "http://127.0.0.1:$port/metrics" | awk -v s="$2" 'index($0, s " ") == 1 { print $2 }')
    sum=$(awk -v a="$sum" -v b="${v:-0}" 'BEGIN { print a + b }')
  done
  echo "$sum"
}

# the paths of the suite were taken: retractions published by outbound and applied by inbound and search, posts
# left half-done published by the reconciler (the counts of instances that lived through those faults)
counted_at_least_once() {
  local what=$1 n; n=$(counter "$2" "$3")
  echo "$what: $n" >&2
  awk -v n="$n" 'BEGIN { exit !(n > 0) }'
}

# a consumer-group rebalance under load: a third inbound instance joins the group, then leaves it gracefully
rebalance() {
  log "fault rebalance: inbound scaled to 3, then back to 2"
  event rebalance stop
  check "rebalance: inbound-3 started (the group rebalances)" env SERVICE_INSTANCES=inbound=3 bash ci/local/services.sh start
  event rebalance stopped
  sleep 15
  event rebalance start
  local since; since=$(date +%s.%N)
  check "rebalance: inbound-3 stopped (the group rebalances again)" \
    env SERVICE_INSTANCES=inbound=3 bash ci/local/services.sh stop inbound-3
  event rebalance started
  counted "rebalance recovery" python3 ci/tests/faults/probe.py recover rebalance "$GRAPH" "$OUT" --since "$since" \
    --timeout "$RECOVER_TIMEOUT"
}

# a counter of Redis' own INFO (section, field; an errorstat's count), 0 when it has none yet
redis_info() {
  # shellcheck source=ci/local/stack/lib.sh
  (source ci/local/stack/lib.sh && redis-cli -h "$STACK_HOST" -p "$REDIS_PORT" INFO "$1") | tr -d '\r' |
    awk -F '[:=,]' -v f="$2" '$1 == f { v = $NF } END { print v + 0 }'
}

# Redis past its memory limit under the ledger's load: it evicts the services' keys to take their writes and never
# refuses one for memory (every key they write expires: volatile-ttl finds room), while the probes check that
# everything answers and the cached first page is Cassandra's
redis_full() {
  local evicted oom
  evicted=$(redis_info stats evicted_keys) oom=$(redis_info errorstats errorstat_OOM)
  fault redis-full 8 bash ci/tests/faults/inject.sh fill redis -- bash ci/tests/faults/inject.sh clear
  check "redis-full: Redis evicted keys to take the writes ($evicted before, $(redis_info stats evicted_keys) after)" \
    test "$(redis_info stats evicted_keys)" -gt "$evicted"
  check "redis-full: no command refused for memory (OOM errors: $oom before, $(redis_info errorstats errorstat_OOM) after)" \
    test "$(redis_info errorstats errorstat_OOM)" -eq "$oom"
}

# PostgreSQL's answers lost under the social-graph ledger (graph_ledger.py: participant creates with their
# Idempotency-Key and befriends, each outcome recorded), sent to social-graph-2, an instance of its own whose
# PostgreSQL is behind ci/tests/faults/pg_relay.py. For 6 s each connection's answers are dropped from the moment it
# sends a write that applies on its own (PostgreSQL does the write, social-graph never hears so: the checks of the
# first ones still find them), then every answer for 10 s more, so the later writes are answered 503 without knowing
# and must be cancelled once PostgreSQL answers again. Whatever social-graph answered must be what PostgreSQL holds
# once its cancellations have run (graph_verify.py).
# written_by PID FILE SECONDS: FILE has content, written by the background process PID; fails once PID has ended or
# SECONDS passed without it
written_by() {
  local deadline=$((SECONDS + $3))
  until [ -s "$2" ]; do
    kill -0 "$1" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}
RELAY=$OUT/pg-relay
GRAPH_INSTANCES="$SERVICE_INSTANCES social-graph=2"
relay_mode() { echo "$1" > "$RELAY/mode"; }
relay_loses_answers() { relay_mode writes && sleep 6 && relay_mode all; }
relay_up() {
  mkdir -p "$RELAY"
  relay_mode pass
  python3 ci/tests/faults/pg_relay.py --upstream "$PG_HOST:$PG_PORT" --mode-file "$RELAY/mode" \
    --port-file "$RELAY/port" --stats-file "$RELAY/stats.json" > "$RELAY/relay.log" 2>&1 &
  relay_pid=$!
  written_by "$relay_pid" "$RELAY/port" 10 || { cat "$RELAY/relay.log" >&2; return 1; }
  # read by social-graph-2 after the stack's endpoints; a pool large enough for the connections the relay holds
  printf 'PG_HOST=127.0.0.1\nPG_PORT=%s\nPG_POOL_SIZE=64\n' "$(cat "$RELAY/port")" > "$RELAY/social-graph.env"
  SERVICE_INSTANCES=$GRAPH_INSTANCES SERVICE_ENV_DIR=$RELAY bash ci/local/services.sh restart social-graph-2
}
# the relay dropped the answers of writes PostgreSQL did
relay_held() { jq -e '.held.commit + .held.statement > 0' "$RELAY/stats.json"; }
# social-graph-2's cancellations of one subject, by outcome
cancellations() {
  curl -sf -m 5 "$1/metrics" | awk -v s="subject=\"$2\"" '
    /^newsfeed_socialgraph_cancellations_total\{/ && index($0, s) {
      match($0, /outcome="[a-z_]+"/); n[substr($0, RSTART + 9, RLENGTH - 10)] += $2; t += $2
    }
    END { for (o in n) printf "%s=%d ", o, n[o]; print "total=" t + 0 }'
}
# every subject's writes answered 503 after a lost answer were cancelled (deleted, or found not stored, kept or retried)
cancelled_both() {
  local subject line
  for subject in participant friendship; do
    line=$(cancellations "$1" "$subject")
    echo "social-graph-2 cancellations of ${subject}s: $line" >&2
    [[ $line =~ total=[1-9] ]] && [[ ! $line =~ abandoned=[1-9] ]] || return 1
  done
}
graph_answers_lost() {
  setup "the PostgreSQL relay and social-graph-2 behind it" relay_up
  local sg2; sg2=http://127.0.0.1:$(SERVICE_INSTANCES=$GRAPH_INSTANCES bash ci/local/services.sh ports social-graph | tail -n 1)
  SOCIAL_GRAPH_URL=$sg2 python3 ci/tests/faults/graph_ledger.py "$OUT" > "$OUT/graph-ledger.log" 2>&1 &
  graph_pid=$!
  written_by "$graph_pid" "$OUT/graph-pool.json" 60 || true
  check "social-graph ledger: its participants made, writing" kill -0 "$graph_pid"
  sleep 3   # a baseline of writes answered 200
  # the probes see social-graph-2 as the social-graph of this fault
  NEWSFEED_INSTANCES=$(tr ' ' '\n' <<< "$NEWSFEED_INSTANCES" | sed "s|^social-graph-1=.*|social-graph-2=$sg2|" | tr '\n' ' ') \
    SOCIAL_GRAPH_URL=$sg2 fault postgresql-answers-lost 10 relay_loses_answers -- relay_mode pass
  check "the relay lost the answers of writes PostgreSQL did: $(jq -c .held "$RELAY/stats.json")" relay_held
  sleep 5
  touch "$OUT/graph-stop"
  local rc=0
  wait "$graph_pid" || rc=$?
  graph_pid=""
  cat "$OUT/graph-ledger.log" >&2
  check "social-graph ledger stopped cleanly" test "$rc" -eq 0
  counted "social-graph ledger" python3 ci/tests/faults/graph_verify.py "$OUT"
  check "social-graph-2 cancelled participants and friendships it had answered 503, none abandoned" cancelled_both "$sg2"
  check "social-graph-2 stopped" env SERVICE_INSTANCES="$GRAPH_INSTANCES" bash ci/local/services.sh stop social-graph-2
  kill "$relay_pid"; wait "$relay_pid" 2>/dev/null || true; relay_pid=""
}

stop_ledger() {
  touch "$OUT/stop"
  local rc=0
  wait "$ledger_pid" || rc=$?
  ledger_pid=""
  [ "$rc" -eq 0 ]
}

system_up
mkdir -p "$OUT"
NEWSFEED_INSTANCES=$(instances)
export NEWSFEED_INSTANCES
export PYTHONDONTWRITEBYTECODE=1
setup "seed the graph" python3 ci/tests/faults/seed.py "$GRAPH" --posters "$POSTERS"

python3 ci/tests/faults/ledger.py "$GRAPH" "$OUT" --rate "$RATE" > "$OUT/ledger.log" 2>&1 &
ledger_pid=$!
if [ "$NOISE_RATE" != 0 ]; then
  # its own process group, so stopping it also stops k6 behind ci/bench/load.sh's pipe; its verdict is not ours
  setsid env PROFILE=ci RATE="$NOISE_RATE" DURATION=30m TESTID=faults-noise bash ci/bench/load.sh social \
    > "$OUT/noise.log" 2>&1 &
  noise_pid=$!
fi
sleep 10   # a baseline before the first fault

fault kafka 10 bash ci/local/stack.sh stop-store kafka -- bash ci/local/stack.sh start-store kafka
fault redis 8 bash ci/local/stack.sh stop-store redis -- bash ci/local/stack.sh start-store redis
fault cassandra 8 bash ci/local/stack.sh stop-store cassandra -- bash ci/local/stack.sh start-store cassandra
fault solr 8 bash ci/local/stack.sh stop-store solr -- bash ci/local/stack.sh start-store solr
fault inbound-2 8 bash ci/local/services.sh kill inbound-2 -- bash ci/local/services.sh restart inbound-2
fault postgresql 8 bash ci/local/stack.sh stop-store postgresql -- bash ci/local/stack.sh start-store postgresql
# crashes: no shutdown of their own, whatever was in flight is cut off
fault kafka-kill9 8 bash ci/local/stack.sh kill-store kafka -- bash ci/local/stack.sh start-store kafka
fault postgresql-kill9 8 bash ci/local/stack.sh kill-store postgresql -- bash ci/local/stack.sh start-store postgresql
fault redis-kill9 8 bash ci/local/stack.sh kill-store redis -- bash ci/local/stack.sh start-store redis
fault solr-kill9 8 bash ci/local/stack.sh kill-store solr -- bash ci/local/stack.sh start-store solr
fault outbound-1 8 bash ci/local/services.sh kill outbound-1 -- bash ci/local/services.sh restart outbound-1
fault search-1 8 bash ci/local/services.sh kill search-1 -- bash ci/local/services.sh restart search-1
fault social-graph-1 8 bash ci/local/services.sh kill social-graph-1 -- bash ci/local/services.sh restart social-graph-1
fault outbound-1-mid-post 8 crash_mid_post -- bash ci/local/services.sh restart outbound-1
# unreachable, not refused: packets dropped on loopback, so clients time out; with only the answers dropped the
# store does the work its client is told failed (a publish or a write whose answer was lost)
fault kafka-answers-lost 10 bash ci/tests/faults/inject.sh drop-answers kafka -- bash ci/tests/faults/inject.sh clear
fault kafka-blackhole 10 bash ci/tests/faults/inject.sh blackhole kafka -- bash ci/tests/faults/inject.sh clear
fault cassandra-answers-lost 8 bash ci/tests/faults/inject.sh drop-answers cassandra -- bash ci/tests/faults/inject.sh clear
fault cassandra-blackhole 8 bash ci/tests/faults/inject.sh blackhole cassandra -- bash ci/tests/faults/inject.sh clear
fault cassandra-slow 10 bash ci/tests/faults/inject.sh slow cassandra -- bash ci/tests/faults/inject.sh clear
graph_answers_lost
redis_full
rebalance
poison

sleep 5   # a tail of posts after the last recovery
check "ledger stopped cleanly" stop_ledger
cat "$OUT/ledger.log" >&2
if [ -n "$noise_pid" ]; then kill -- "-$noise_pid" 2>/dev/null || true; wait "$noise_pid" 2>/dev/null || true; noise_pid=""; fi
check "no service instance died during the faults" bash ci/local/services.sh status
check "outbound published retractions of posts whose publish failed" counted_at_least_once "retractions published" \
  outbound 'newsfeed_outbound_retractions_total{outcome="published",service="outbound"}'
check "inbound applied retractions" counted_at_least_once "retractions applied by inbound" \
  inbound 'newsfeed_events_total{event="retracted",service="inbound"}'
check "search applied retractions" counted_at_least_once "retractions applied by search" \
  search 'newsfeed_events_total{event="retracted",service="search"}'
check "outbound's reconciler published the posts the crash left half-done" counted_at_least_once \
  "posts published by the reconciler" outbound 'newsfeed_outbound_reconciled_total{outcome="published",service="outbound"}'
counted "verification" python3 ci/tests/faults/verify.py "$GRAPH" "$OUT" --timeout "$RECOVER_TIMEOUT"
counted "report" python3 ci/tests/faults/report.py "$OUT"
log "suite took $((SECONDS - suite_start)) s"

echo "faults: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
