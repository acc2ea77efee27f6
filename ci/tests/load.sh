#!/usr/bin/env bash
# Load suite: runs the k6 scripts against the real services on real stores, briefly.
#   smoke          every endpoint once, checks on every body; its metrics remote-written to a Prometheus
#                  started here, which must then hold k6 series tagged with the run's testid
#   social         a short open-loop social run (PROFILE=ci, LOAD_TEST_DURATION, LOAD_TEST_RATE)
#   fanout         one poster with LOAD_TEST_FOLLOWERS followers, every sampled feed must get the post; inbound's
#                  own timer, watched as the benchmark's fanout step does, must time each post's fan-out once
#   experiment     the benchmark workload (posts, reads, searches) with CHECK_EVERY=3: deep and status-only checks
#   soak-table     the benchmark's soak step, tiny: a table row per interval with traffic, p95 and every RSS
#   growth-table   the benchmark's growth step, tiny: two stages grown through k6/grow.js, their fan-out waited for,
#                  a row per stage with the stored counts, the rows grown, the load's p95, every memory and disk
#   overload-step  the benchmark's overload step, tiny: outbound unbounded sheds no post, bounded to 1 request in
#                  flight sheds some (its shed counter), each status timed apart; outbound back at its own settings
#   graphql        the classic client's GraphQL mode through edge, tiny: every scenario's checks ran and passed
#   fails-on-error smoke against services that are not there must fail (k6 exit 99), so a failed check or
#                  threshold really fails this suite
#   warmup-plan    k6 inspect: the load profile's warm-up scenarios come first and carry no latency threshold
# Each run passes only with k6 exit 0, every threshold ok in summary.json and the dashboard HTML written.
# Stores: $NEWSFEED_STACK_ENV when set (e.g. the stack of ci/tests/run.sh), otherwise a stack started here.
# Last line: `load: N passed, N failed`.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

export NEWSFEED_RUN=${NEWSFEED_RUN:-$ROOT/.run/test}/load
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-800}
export CI=${CI:-}
BIN=$HOME/.cache/newsfeed/bin
mkdir -p "$NEWSFEED_RUN"
STAMP=$(date -u +%Y%m%dT%H%M%SZ)

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
finish() { echo "load: $passed passed, $failed failed"; }

started_stack=false started_services=false prom_pid=
cleanup() {
  local rc=$?
  [ -z "$prom_pid" ] || { kill "$prom_pid" 2>/dev/null || true; wait "$prom_pid" 2>/dev/null || true; }
  if $started_services; then bash ci/local/services.sh stop >&2 || true; fi
  if $started_stack; then bash ci/local/stack.sh down >&2 || true; fi
  exit "$rc"
}
trap cleanup EXIT

for tool in "$BIN/k6" "$BIN/prometheus" jq curl; do
  command -v "$tool" >/dev/null || { echo "missing $tool (bash ci/local/tools.sh all)" >&2; fail setup "missing $tool"; finish; exit 1; }
done

if [ -z "${NEWSFEED_STACK_ENV:-}" ]; then
  started_stack=true
  bash ci/local/stack.sh up >&2
  export NEWSFEED_STACK_ENV=$NEWSFEED_RUN/stack.env
fi
if [ ! -f ci/local/services.sh ]; then
  fail setup "ci/local/services.sh does not exist yet"; finish; exit 1
fi
started_services=true
if ! bash ci/local/services.sh start >&2; then
  fail setup "ci/local/services.sh start failed"; finish; exit 1
fi

# A throwaway Prometheus that accepts remote write, to see the k6 series arrive with their testid label.
PROM_PORT=$((19090 + NEWSFEED_PORT_OFFSET))
PROM_DIR=$NEWSFEED_RUN/load-prometheus
rm -rf "$PROM_DIR"; mkdir -p "$PROM_DIR"
printf 'global:\n  scrape_interval: 15s\n' > "$PROM_DIR/prometheus.yml"
"$BIN/prometheus" --config.file="$PROM_DIR/prometheus.yml" --storage.tsdb.path="$PROM_DIR/data" \
  --web.listen-address="127.0.0.1:$PROM_PORT" --web.enable-remote-write-receiver >"$PROM_DIR/log" 2>&1 &
prom_pid=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$PROM_PORT/-/ready" && break; sleep 0.2; done

# every threshold of a summary.json, and whether all are ok
thresholds_ok() { jq -e '[.metrics[] | .thresholds // {} | .[] | .ok] | length > 0 and all' "$1" >/dev/null; }

# run <name> <scenario> <expected k6 exit> [env assignments...]: one k6 run, judged from its exit and reports
run() {
  local name=$1 scenario=$2 expect=$3; shift 3
  local testid=load-test-$name-$STAMP rc=0
  local reports=$NEWSFEED_RUN/reports/$testid
  echo "=== $name ($scenario, testid $testid)"
  env TESTID="$testid" "$@" bash ci/bench/load.sh "$scenario" -q || rc=$?
  if [ "$rc" -ne "$expect" ]; then fail "$name" "k6 exit $rc, expected $expect (see $reports)"; return 1; fi
  if [ ! -s "$reports/summary.json" ]; then fail "$name" "no summary.json in $reports"; return 1; fi
  if [ "$expect" -eq 0 ] && ! thresholds_ok "$reports/summary.json"; then
    fail "$name" "a threshold failed in $reports/summary.json"; return 1
  fi
  if [ "$expect" -ne 0 ] && thresholds_ok "$reports/summary.json"; then
    fail "$name" "k6 failed but every threshold in summary.json is ok"; return 1
  fi
  if [ "$expect" -eq 0 ] && [ ! -s "$reports/dashboard.html" ]; then
    fail "$name" "no dashboard.html in $reports"; return 1
  fi
  return 0
}

if run smoke smoke 0 PROMETHEUS_URL="http://127.0.0.1:$PROM_PORT"; then
  # the remote-write output flushes at the end of the run; the series must carry the testid label
  query="count(k6_http_reqs_total{testid=\"load-test-smoke-$STAMP\"})"
  if curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$query" \
      | jq -e '.data.result | length > 0' >/dev/null; then
    pass smoke
  else
    fail smoke "no k6_http_reqs_total series with the testid in the remote-write Prometheus"
  fi
fi

run social social 0 PROFILE=ci DURATION="${LOAD_TEST_DURATION:-30s}" RATE="${LOAD_TEST_RATE:-10}" \
  && pass social

# while the fan-out posts run, the benchmark's watcher of inbound's own fan-out timer (ci/bench/experiment/benchmarks.sh
# fanout) must see each of the two posts once, timed from acceptance to the last row within the run's timeout (it
# starts before k6: a first post's fan-out to 200 followers can end before setup's last line reaches the log)
fanouts=$NEWSFEED_RUN/fanouts.jsonl
rm -f "$fanouts"
mapfile -t inbound_urls < <(bash ci/local/services.sh ports inbound | sed 's|^|http://127.0.0.1:|')
python3 ci/bench/experiment/server_metrics.py fanouts "$fanouts" "${inbound_urls[@]}" &
fanout_watcher=$!
run fanout fanout 0 FOLLOWERS="${LOAD_TEST_FOLLOWERS:-200}" SAMPLE=50 POSTS=2 FANOUT_TIMEOUT_S=60 \
  && pass fanout
sleep 1; kill "$fanout_watcher" 2>/dev/null || true; wait "$fanout_watcher" 2>/dev/null || true
delays=$(python3 ci/bench/experiment/server_metrics.py fanout-delays "$fanouts" 2>&1 || true)
if jq -e '.posts == 2 and all(.ms[]; . > 0 and . < 60000)' <<< "$delays" >/dev/null 2>&1; then
  pass fanout-service-timed
else
  fail fanout-service-timed "inbound's fan-out timer, watched during the run: $delays (want 2 posts, 0 < ms < 60000)"
fi

# the benchmark workload with sampled deep checks: every third iteration of each scenario checks the body and
# the others the status only, so both kinds of check must have run and passed
if run experiment experiment 0 RATE=30 DURATION=15s K6_WEB_DASHBOARD_PERIOD=1s PARTICIPANTS=40 FRIENDS=4 \
    POST_SHARE=1 INBOUND_SHARE=1 SEARCH_SHARE=1 CHECK_EVERY=3; then
  summary=$NEWSFEED_RUN/reports/load-test-experiment-$STAMP/summary.json
  # every check of the run by name; per scenario the deep check ran on a third of the iterations (2 x deep ~ status)
  if jq -e '[.. | objects | select(has("passes") and has("fails") and has("name"))] as $c
      | def passes($n): ($c | map(select(.name == $n)) | if length == 1 then .[0].passes else 0 end);
      ($c | map(select(.fails > 0)) | length) == 0
      and ([["post outbound: 200", "post outbound: 200 with the outbound shape"],
            ["read inbound: 200", "read inbound: 200, a full page of the participant"],
            ["search: 200", "search: 200 with participant links"]]
           | map(passes(.[0]) as $status | passes(.[1]) as $deep
                 | $deep > 0 and $status > 0 and (2 * $deep - $status | fabs) <= 3) | all)' "$summary" >/dev/null; then
    pass experiment
  else
    fail experiment "the status-only and the deep checks of every scenario did not all run and pass ($summary)"
  fi
fi

# the benchmark's soak step as a user runs it, tiny (on this suite's services, which it reuses): its table has a row
# per interval with posts and reads served, their p95 at the services, and the RSS of every service and store
soak_table() {  # soak_table FILE: at least 2 rows, each with traffic, percentiles and every process's memory
  python3 - "$1" <<'PY'
import sys
lines = [l.strip().strip("|").split("|") for l in open(sys.argv[1]) if l.startswith("|")]
head, rows = [c.strip() for c in lines[0]], [[c.strip() for c in r] for r in lines[2:]]
want = [f"{p} MiB" for p in ("social-graph-1", "outbound-1", "inbound-1", "search-1", "edge-1",
                             "cassandra", "kafka", "postgresql", "redis", "solr")]
missing = [w for w in want if w not in head]
assert not missing, f"no column {missing} in {head}"
assert len(rows) >= 2, f"{len(rows)} rows"
for r in rows:
    cell = dict(zip(head, r))
    assert float(cell["posts/s"]) > 0 and float(cell["reads/s"]) > 0, r
    float(cell["post p95 ms"]), float(cell["read p95 ms"])
    assert all(float(cell[w]) > 0 for w in want), r
    int(cell["compactions"])
PY
}
soak_out=$NEWSFEED_RUN/bench-soak-$STAMP
if OUT=$soak_out SOAK_RATE=40 SOAK_DURATION=35s SOAK_SAMPLE_S=10 PARTICIPANTS=40 FRIENDS=4 \
    bash ci/bench/experiment/benchmarks.sh soak > "$soak_out.log" 2>&1 &&
    grep -q $'^soak\tread_inbound,post_outbound\t40\t' "$soak_out/results.tsv" &&
    soak_table "$soak_out/soak-minutes/per-minute.md" 2>> "$soak_out.log"; then
  pass soak-table
else
  fail soak-table "benchmarks.sh soak: no results row or no table of its intervals ($soak_out.log)"
fi

# the benchmark's growth step as a user runs it, tiny: stage 1 adds 60 participants (3 hubs of 19 friends, 2 posts
# each: 114 rows), stage 2 adds 90 (3 hubs of 29, 3 posts each: 261 more rows); every stage's fan-out completed;
# each stage's load also read feeds of participants it did not make (k6's p95 of those cold reads in the table)
growth_table() {  # growth_table FILE: stages 0-2, counts that grow by at least what was added, every memory and disk,
                  # Redis' own memory within its maxmemory
  python3 - "$1" <<'PY'
import sys
tables = open(sys.argv[1]).read().strip().split("\n\n")
parse = lambda t: [[c.strip() for c in l.strip().strip("|").split("|")] for l in t.splitlines()]
(head, _, *rows), (mhead, _, *mrows), (rhead, _, *rrows) = parse(tables[0]), parse(tables[1]), parse(tables[2])
cells = [dict(zip(head, r)) for r in rows]
assert [c["stage"] for c in cells] == ["0", "1", "2"], cells
num = lambda v: int(v.replace(",", ""))
assert [num(c["rows grown"]) for c in cells] == [0, 114, 375], cells
for before, after, added in ((cells[0], cells[1], 60), (cells[1], cells[2], 90)):
    assert num(after["participants"]) - num(before["participants"]) >= added, (before, after)
    assert num(after["friendships"]) - num(before["friendships"]) >= added - 3, (before, after)
    float(after["fan-out settled in (s)"]), int(after["grown in (s)"])
for c in cells:
    assert float(c["achieved/s"]) > 0 and float(c["post p95 ms"]) > 0 and float(c["read p95 ms"]) > 0, c
    assert float(c["k6 cold read p95 ms"]) > 0, c
want = [f"{p} memory MiB" for p in ("social-graph-1", "outbound-1", "inbound-1", "search-1", "cassandra", "kafka",
                                 "postgresql", "redis", "solr")] + [f"{s} disk MiB" for s in ("cassandra", "kafka",
                                                                                               "postgresql", "solr")]
assert not [w for w in want if w not in mhead], mhead
assert all(float(dict(zip(mhead, r))[w]) > 0 for r in mrows for w in want) and len(mrows) == 3, mrows
redis = [{k: num(v) for k, v in zip(rhead, r)} for r in rrows]
assert len(redis) == 3 and all(r["redis used MiB"] > 0 and r["redis keys"] > 0 and r["redis evicted keys"] >= 0
                               and r["redis maxmemory MiB"] >= r["redis used MiB"] for r in redis), redis
PY
}
growth_out=$NEWSFEED_RUN/bench-growth-$STAMP
if OUT=$growth_out GROWTH_STAGES="60:20:2 90:30:3" GROWTH_RATE=40 GROWTH_DURATION=10s GROWTH_SETTLE_TIMEOUT_S=120 \
    PARTICIPANTS=40 FRIENDS=4 bash ci/bench/experiment/benchmarks.sh growth > "$growth_out.log" 2>&1 &&
    [ "$(grep -c $'^growth-[012]\tread_inbound,post_outbound,read_cold\t40\t' "$growth_out/results.tsv")" -eq 3 ] &&
    growth_table "$growth_out/growth/stages.md" 2>> "$growth_out.log"; then
  pass growth-table
else
  fail growth-table "benchmarks.sh growth: no row per stage or a wrong table of the stages ($growth_out.log)"
fi

# the benchmark's overload step as a user runs it, tiny: outbound restarted unbounded (0) and with a bound of 1 request
# in flight, posts at 200/s by up to 40 VUs (no prefilled posts: the bound would refuse most of setup's batches and
# setup would wait for feeds that never fill); the bounded run's bound refuses some (outbound's shed counter) and its
# server column times the accepted posts apart from the refusals, the unbounded one's bound refuses none (a 503 of a
# store that timed out on a busy machine is not the bound's); outbound is back to its own settings afterwards
overload_rows() {  # overload_rows RESULTS: prints why not on its last line
  python3 - "$1" <<'PY'
import json, sys
rows = {l.split("\t")[0]: l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.startswith("overload-")}
if set(rows) != {"overload-max-in-flight-0", "overload-max-in-flight-1"}:
    sys.exit(f"rows: {sorted(rows)}")
route = "outbound POST /participant/:id/outbound"
unbounded, bounded = (json.loads(rows[f"overload-max-in-flight-{n}"][-1]) for n in (0, 1))
if unbounded.get(route, {}).get("n", 0) == 0 or unbounded.get("shed", {}).get("outbound", 0) != 0:
    sys.exit(f"unbounded: {unbounded.get(route)}, shed {unbounded.get('shed')}")
if bounded.get("shed", {}).get("outbound", 0) == 0 or bounded.get(f"{route} 200", {}).get("n", 0) == 0:
    sys.exit(f"bounded: {bounded.get(route + ' 200')} accepted, shed {bounded.get('shed')}")
PY
}
overload_out=$NEWSFEED_RUN/bench-overload-$STAMP
if ! OUT=$overload_out OVERLOAD_LIMITS="0 1" OVERLOAD_RATE=200 OVERLOAD_VUS=40 OVERLOAD_WARMUP=5s WARMUP_RATE=40 \
    STEP_DURATION=10s PARTICIPANTS=40 FRIENDS=4 PREFILL_POSTS=0 bash ci/bench/experiment/benchmarks.sh overload \
    > "$overload_out.log" 2>&1; then
  fail overload-step "benchmarks.sh overload failed ($overload_out.log)"
elif ! why=$(overload_rows "$overload_out/results.tsv" 2>&1); then
  fail overload-step "${why##*$'\n'} ($overload_out/results.tsv)"
elif ! curl -sf "$(bash ci/local/services.sh ports outbound | head -n 1 | sed 's|^|http://127.0.0.1:|')/metrics" |
    grep '^newsfeed_http_server_max_in_flight{service="outbound"} 512' > /dev/null; then
  fail overload-step "outbound not back at its bound of 512 after the step ($overload_out.log)"
else
  pass overload-step
fi

# the classic client's GraphQL mode through the local edge (graphql.js), tiny: setup's mutations, then each of the
# five scenarios' documents; every check of every scenario must have run and passed
if run graphql graphql 0 PROFILE=ci RATE=10 DURATION="${LOAD_TEST_GRAPHQL_DURATION:-20s}" PARTICIPANTS=30 \
    MIN_FRIENDS=1 MAX_FRIENDS=4 K6_WEB_DASHBOARD_PERIOD=1s; then
  summary=$NEWSFEED_RUN/reports/load-test-graphql-$STAMP/summary.json
  if jq -e '[.. | objects | select(has("passes") and has("fails") and has("name"))] as $c
      | ($c | map(select(.fails > 0)) | length) == 0
      and (["setup participant: created", "setup friends: created",
            "post outbound: the poster, no errors", "read inbound: the first page, newest first, no errors",
            "read outbound: the first page, newest first, no errors",
            "read friends: participants of the run with their names, no errors", "search: posters as ids, no errors"]
           | map(. as $n | $c | map(select(.name == $n and .passes > 0)) | length == 1) | all)' "$summary" >/dev/null; then
    pass graphql
  else
    fail graphql "a check of the GraphQL scenarios did not run or failed ($summary)"
  fi
fi

# the load profile's warm-up: warmup_<scenario> for WARMUP first, the measured scenarios from then on, latency
# thresholds only on those; none with WARMUP=0s, STAGES or POSTS_PER_USER (which counts every post); a WARMUP that
# is no duration stops the run with its name instead of silently running none
plan() { local e=(); for kv in PROFILE=load "$@"; do e+=(-e "$kv"); done; "$BIN/k6" inspect "${e[@]}" k6/social.js 2>/dev/null; }
warmups() { plan "$@" | jq -c '[.scenarios | keys[] | select(startswith("warmup_"))]'; }
if plan WARMUP=20s | jq -e '.scenarios as $s | ([$s | keys[] | select(startswith("warmup_") | not)] | length) == 4
    and all($s | keys[] | select(startswith("warmup_") | not); $s[.].startTime == "20s" and $s["warmup_" + .].duration == "20s")
    and ([.thresholds | keys[] | select(contains("warmup"))] == [])' >/dev/null &&
  [ "$(warmups WARMUP=0s)" = '[]' ] && [ "$(warmups STAGES=10s:5)" = '[]' ] && [ "$(warmups POSTS_PER_USER=1)" = '[]' ] &&
  ! plan WARMUP=15 >/dev/null && refused_warmup=$("$BIN/k6" inspect -e PROFILE=load -e WARMUP=abc k6/social.js 2>&1; true) &&
  grep -q "WARMUP must be a duration" <<< "$refused_warmup"; then
  pass warmup-plan
else
  fail warmup-plan "k6 inspect of PROFILE=load did not show the warm-up scenarios as planned ($(warmups WARMUP=20s))"
fi

# nothing listens on port 1: participant creation fails, so checks and thresholds must fail the run
run fails-on-error smoke 99 BASE_URL=http://127.0.0.1:1 SOCIAL_GRAPH_URL=http://127.0.0.1:1 \
  OUTBOUND_URL=http://127.0.0.1:1 INBOUND_URL=http://127.0.0.1:1 SEARCH_URL=http://127.0.0.1:1 HTTP_TIMEOUT=2s \
  && pass fails-on-error

finish
[ "$failed" -eq 0 ]
