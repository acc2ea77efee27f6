#!/usr/bin/env bash
# The measurements of docs/benchmarks.md, in local mode on this machine (stores, services and k6 share it):
#   startup  time from JVM start to "<service> started" (listening and ready), each service restarted alone
#   warmup   posts and reads at WARMUP_RATE (600/s) for WARMUP_DURATION (90s), not measured: warm JVMs
#   posts    k6/experiment.js posting only (fan-out to exactly FRIENDS friends) at each of POST_RATES
#   target   posts at TARGET_POST_RATE for TARGET_DURATION (the 2-minute posts target of docs/benchmarks.md)
#   reads    inbound reads of full feeds at each of READ_RATES;  search  keyword searches at SEARCH_RATES
#   mixed    posts and reads together at each of MIXED_RATES, MIXED_READS_PER_POST (4) reads per post
#   soak     the mixed load at SOAK_RATE (2000) for SOAK_DURATION (10m), a table of its minutes (a row every
#            SOAK_SAMPLE_S, 60) beside its row: OUT/soak-minutes/per-minute.md; run only when named
#   growth   the stored data grown stage by stage through the API (k6/grow.js, GROWTH_STAGES), and before the first
#            stage and after each the same mixed load (GROWTH_RATE, 1000/s, GROWTH_DURATION, 60s) measured, with
#            GROWTH_COLD_READS_PER_POST (1) reads of the feeds of any participant there is beside the 4 of its own;
#            the table of the stages (stored data, latency, CPU, memory and disk of every component, Redis' own
#            used memory, keys and evictions) is OUT/growth/stages.md; run only when named
#   overload posts offered beyond what the machine serves (OVERLOAD_RATE, 2500/s, by up to OVERLOAD_VUS, 1500, k6 VUs, so
#            k6 does not bound the requests in flight), once per HTTP_MAX_IN_FLIGHT of OVERLOAD_LIMITS ("0 512"),
#            outbound restarted with it and warmed for OVERLOAD_WARMUP (30s); with a route's answers split by status in
#            the server column, the accepted posts' latency apart from the refusals. OVERLOAD_SLOW_STORE=cassandra (or
#            another store of NEWSFEED_RUN's stack) pauses that store 0.3 s of every 0.5 s during each load
#            (ci/tests/faults/inject.sh slow, as root): the requests then wait on the store, not on the CPU. Run only
#            when named
#   fanout   k6/fanout.js: one poster with each of FANOUT_FOLLOWERS followers, 3 posts, 200 sampled feeds; the
#            server column holds each post's fan-out as inbound timed it (accepted -> last row acknowledged)
#   rows     the machine's limit for fan-out rows: Cassandra alone through fan-out's write path (row_limit.sh), rows/s
#            per setting of writes in flight and rows per request (ROW_LIMIT_ROWS, ROW_LIMIT_SETTINGS)
#   memory   RSS (VmRSS) and peak RSS (VmHWM) of every service JVM after the load steps
#   profile  async-profiler CPU profile of outbound, inbound and social-graph during a PROFILE_RATE posts run
# Every load step also records where the machine's CPU went (k6, each service, each store: cpu_split.py) and the
# services' own view of the window (server_metrics.py: latency at the API per route, fan-out delay, consumer lag).
# Usage: ci/bench/experiment/benchmarks.sh [STEP...]     (default: every step above but soak and growth, in order)
# Environment: NEWSFEED_RUN (default a new /tmp/newsfeed-bench.*), NEWSFEED_PORT_OFFSET (default 2000),
#   NEWSFEED_STACK_ENV (the stores; otherwise a stack is started here and stopped at the end), OUT,
#   POST_RATES ("250 500 1000"), READ_RATES ("1000 2000 3000"), MIXED_RATES ("2000"), SEARCH_RATES ("50 100 200"),
#   STEP_DURATION (30s), TARGET_POST_RATE (1000), TARGET_DURATION (2m), FANOUT_FOLLOWERS ("1000 10000"),
#   FANOUT_TIMEOUT_S (180: per post, until the sampled feeds show it), GROWTH_STAGES ("100000:1000:10
#   400000:10000:10 500000:100000:14": per stage ADD:GROUP:POSTS of k6/grow.js, participants added in groups of one hub
#   and GROUP - 1 friends, each hub posting POSTS times; friend lists past 10,000 need the services started with
#   SERVICE_ENV=SOCIAL_GRAPH_MAX_FRIENDS=0), GROWTH_SETTLE_TIMEOUT_S (3600: per stage, until the fan-out of its posts
#   completed), GROWTH_RATE (1000), GROWTH_DURATION (60s),
#   PARTICIPANTS (1000), FRIENDS (10), MIXED_READS_PER_POST (4), CHECK_EVERY (10: k6 checks every 10th response in
#   depth, the rest by status), PRE_ALLOCATED_VUS (400: every VU of experiment.js initialised before the load),
#   WARMUP_RATE (600), WARMUP_DURATION (90s), PROFILE_RATE (500), SERVICE_JAVA_OPTS (as ci/local/services.sh).
#   Services already running in NEWSFEED_RUN are reused (warm JVMs) and left running; otherwise they are started
#   here and stopped at the end.
# Output: OUT/results.tsv (one line per measurement), OUT/profiles/<service>.md, OUT/*/ k6 reports.
set -euo pipefail
cd "$(dirname "$0")/../../.."
# 2000: no port of it is a port of a test suite's offset (1400 put inbound on the stack suite's Solr port)
export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-2000}
if [ -z "${NEWSFEED_RUN:-}" ]; then NEWSFEED_RUN=$(mktemp -d /tmp/newsfeed-bench.XXXXXX); chmod 755 "$NEWSFEED_RUN"; fi
export NEWSFEED_RUN
STAMP=$(date -u +%Y%m%dt%H%M%Sz)
OUT=${OUT:-$NEWSFEED_RUN/benchmarks-$STAMP}
mkdir -p "$OUT/profiles"
RESULTS=$OUT/results.tsv
STEP_DURATION=${STEP_DURATION:-30s}
PARTICIPANTS=${PARTICIPANTS:-1000}
FRIENDS=${FRIENDS:-10}
# every 10th response is checked in depth, the others by status: checking every body cost k6 (on the same 2 cores
# as the services) 0.9 ms of CPU per feed read, half of it parsing and walking the JSON
CHECK_EVERY=${CHECK_EVERY:-10}
# every VU initialised before the load (experiment.js's MAX_VUS): a VU started mid-run costs k6 CPU while the
# iterations waiting for it are dropped (1,000 posts/s: 956-984/s achieved with 50 pre-allocated, 993-995/s with 400)
PRE_ALLOCATED_VUS=${PRE_ALLOCATED_VUS:-400}
log() { echo "[bench $(date +%T)] $*" >&2; }

started_stack=false started_services=false
cleanup() {
  if [ -n "${OVERLOAD_SLOW_STORE:-}" ]; then bash ci/tests/faults/inject.sh clear >/dev/null 2>&1 || true; fi
  if $started_services; then bash ci/local/services.sh stop >/dev/null 2>&1 || true; fi
  if $started_stack; then bash ci/local/stack.sh down >/dev/null 2>&1 || true; fi
  log "results: $RESULTS"
}
trap cleanup EXIT

if [ -z "${NEWSFEED_STACK_ENV:-}" ]; then
  started_stack=true
  bash ci/local/stack.sh up >&2
fi
# services already running (a warm, reused set) are measured as they are and left running
if ! bash ci/local/services.sh status 2>/dev/null | awk 'NR > 1 && $2 != "running" { bad = 1 } END { exit bad || NR < 2 }'; then
  started_services=true
fi
bash ci/local/services.sh start >&2
[ -s "$RESULTS" ] || printf 'step\tname\ttarget_per_s\tachieved_per_s\tp50_ms\tp95_ms\tp99_ms\tfailed_ratio\tdropped\tk6_exit\tloadavg\tcpu_cores\tserver\n' > "$RESULTS"

row() { local IFS=$'\t'; echo "$*" >> "$RESULTS"; }
# the CPU splits count the processes of the services' run dir and of the stores' (a shared stack's) as this run's
# shellcheck source=ci/bench/experiment/cpu_dirs.sh
source ci/bench/experiment/cpu_dirs.sh
mapfile -t CPU_DIRS < <(cpu_dirs)
loadavg() { cut -d' ' -f1 /proc/loadavg; }
# the stores' env file and their run dir (pids, logs, data): a shared stack's, or the one started here
stack_env() { echo "${NEWSFEED_STACK_ENV:-$NEWSFEED_RUN/stack.env}"; }
stack_dir() { echo "$(dirname "$(realpath "$(stack_env)")")/stack"; }
pid_of() { read -r pid _ < "$NEWSFEED_RUN/services/pids/$1.pid"; echo "$pid"; }

step_startup() {
  local svc pid ticks btime hz start ready
  btime=$(awk '/^btime/ { print $2 }' /proc/stat); hz=$(getconf CLK_TCK)
  for svc in social-graph outbound inbound search; do
    bash ci/local/services.sh restart "$svc-1" >&2
    read -r pid ticks < "$NEWSFEED_RUN/services/pids/$svc-1.pid"
    start=$(awk -v b="$btime" -v t="$ticks" -v hz="$hz" 'BEGIN { printf "%.3f", b + t / hz }')
    ready=$(grep -F "\"$svc started\"" "$NEWSFEED_RUN/services/logs/$svc-1.log" | tail -n 1 | jq -r '.timestamp / 1000')
    row startup "$svc" - "$(awk -v s="$start" -v r="$ready" 'BEGIN { printf "%.2f", r - s }')" - - - - - - "$(loadavg)" - -
  done
}

# k6 summary -> "achieved/s p50 p95 p99 failed dropped" for the named scenarios (their requests only)
summarise() {
  python3 - "$@" <<'PY'
import json, sys
summary, seconds, scenarios = sys.argv[1], float(sys.argv[2]), sys.argv[3].split(",")
m = json.load(open(summary))["metrics"]
count = sum(m.get(f"http_req_duration{{scenario:{s}}}", {}).get("values", {}).get("count", 0) for s in scenarios)
d = m.get(f"http_req_duration{{scenario:{scenarios[0]}}}", {}).get("values", {})
f = m.get(f"http_req_failed{{scenario:{scenarios[0]}}}", {}).get("values", {})
dropped = m.get("dropped_iterations", {}).get("values", {}).get("count", 0)
fmt = lambda v: "-" if v is None else f"{v:.2f}"
print("\t".join([fmt(count / seconds), fmt(d.get("med")), fmt(d.get("p(95)")), fmt(d.get("p(99)")),
                 fmt(f.get("rate")), str(int(dropped))]))
PY
}

# every running instance's base URL of these services (default: the four), for the services' own metrics
service_urls() {
  local svc port services=("$@")
  [ $# -gt 0 ] || services=(social-graph outbound inbound search)
  for svc in "${services[@]}"; do
    for port in $(bash ci/local/services.sh ports "$svc"); do echo "http://127.0.0.1:$port"; done
  done
}

seconds_of() { case $1 in *m) echo $(( ${1%m} * 60 )) ;; *s) echo "${1%s}" ;; *) echo "$1" ;; esac; }

# load_step STEP SCRIPT SCENARIO RATE DURATION [ENV...]: one k6 run at RATE/s, its CPU split after setup
load_step() {
  local step=$1 script=$2 scenario=$3 rate=$4 duration=$5; shift 5
  # a rate measured again in the same run (READ_RATES="3000 3000") gets a directory and test id of its own: with a
  # shared k6.log the CPU window of the second run would start at the first run's setup line
  local dir=$OUT/$step-$rate n=1
  while [ -e "$dir" ]; do n=$((n + 1)); dir=$OUT/$step-$rate-$n; done
  local testid=bench-${dir##*/}-$STAMP rc=0
  LOAD_DIR=$dir   # for the caller: the step's k6 summary and snapshots
  local klog=$NEWSFEED_RUN/reports/$testid/k6.log urls=()
  mapfile -t urls < <(service_urls)
  mkdir -p "$dir"
  log "$step: $script $scenario at $rate/s for $duration"
  # the CPU split covers the load only: its first snapshot is taken when setup logs its last line
  # and its last 2 s before the load ends (k6 still runs then, so its own CPU is counted)
  ( until grep -q 'setup: ' "$klog" 2>/dev/null; do sleep 0.2; done
    local load_end=$((SECONDS + $(seconds_of "$duration") - 2))
    python3 ci/bench/experiment/cpu_split.py snapshot "$dir/cpu-before.json" "${CPU_DIRS[@]}"
    python3 ci/bench/experiment/server_metrics.py snapshot "$dir/server-before.json" "${urls[@]}"
    sleep $((load_end > SECONDS ? load_end - SECONDS : 0)) &
    echo $! > "$dir/.load-sleep"
    wait $! || true
    python3 ci/bench/experiment/cpu_split.py snapshot "$dir/cpu-after.json" "${CPU_DIRS[@]}"
    python3 ci/bench/experiment/server_metrics.py snapshot "$dir/server-after.json" "${urls[@]}" ) &
  local watcher=$!
  env TESTID="$testid" RATE="$rate" DURATION="$duration" PARTICIPANTS="$PARTICIPANTS" FRIENDS="$FRIENDS" \
    CHECK_EVERY="$CHECK_EVERY" PRE_ALLOCATED_VUS="$PRE_ALLOCATED_VUS" "$@" \
    bash ci/bench/load.sh "$script" -q > "$dir/k6.out" 2>&1 || rc=$?
  # a watcher that saw the setup always finishes its snapshots (cut short if k6 ended first, never killed in the
  # middle of a scrape that a busy service answers slowly, which left a step without its server column); one that
  # never saw it has nothing to take
  if grep -q 'setup: ' "$klog" 2>/dev/null; then
    until [ -s "$dir/.load-sleep" ] || ! kill -0 "$watcher" 2>/dev/null; do sleep 0.1; done
    kill "$(cat "$dir/.load-sleep" 2>/dev/null)" 2>/dev/null || true
  else
    kill "$watcher" 2>/dev/null || true
  fi
  wait "$watcher" 2>/dev/null || true
  rm -f "$dir/.load-sleep"
  [ -f "$dir/cpu-after.json" ] || python3 ci/bench/experiment/cpu_split.py snapshot "$dir/cpu-after.json" "${CPU_DIRS[@]}"
  local cpu=-
  [ -f "$dir/cpu-before.json" ] && cpu=$(python3 ci/bench/experiment/cpu_split.py diff "$dir/cpu-before.json" "$dir/cpu-after.json")
  # the services' own latency at the API over the same window, the fan-out delay and the consumer lag at its end
  local server=-
  [ -f "$dir/server-after.json" ] && server=$(python3 ci/bench/experiment/server_metrics.py diff "$dir/server-before.json" "$dir/server-after.json")
  cp "$NEWSFEED_RUN/reports/$testid/summary.json" "$dir/" 2>/dev/null || true
  local numbers="-	-	-	-	-	-"
  [ -f "$dir/summary.json" ] && numbers=$(summarise "$dir/summary.json" "$(seconds_of "$duration")" "$scenario")
  row "$step" "$scenario" "$rate" "$numbers" "$rc" "$(loadavg)" "$cpu" "$server"
  tail -n 1 "$RESULTS" >&2
}

# JIT-compiles the services and the stores before anything is measured: on fresh JVMs the posts rate was about
# half of the warm rate (C2 compilation took 40-57 % of the services' CPU in their first minute)
step_warmup() {
  local dir=$OUT/warmup testid=bench-warmup-$STAMP
  mkdir -p "$dir"
  log "warmup: posts and reads at ${WARMUP_RATE:-600}/s for ${WARMUP_DURATION:-90s} (not measured)"
  env TESTID="$testid" RATE="${WARMUP_RATE:-600}" DURATION="${WARMUP_DURATION:-90s}" PARTICIPANTS="$PARTICIPANTS" \
    FRIENDS="$FRIENDS" POST_SHARE=1 INBOUND_SHARE=1 K6_WEB_DASHBOARD=false bash ci/bench/load.sh experiment -q \
    > "$dir/k6.out" 2>&1 || true
}

step_posts() {
  local r
  for r in ${POST_RATES:-250 500 1000}; do
    load_step posts experiment post_outbound "$r" "$STEP_DURATION" POST_SHARE=1 INBOUND_SHARE=0 P95_MS=50
  done
}
step_target() {
  load_step target experiment post_outbound "${TARGET_POST_RATE:-1000}" "${TARGET_DURATION:-2m}" \
    POST_SHARE=1 INBOUND_SHARE=0 P95_MS=50
}
step_reads() {
  local r
  for r in ${READ_RATES:-1000 2000 3000}; do load_step reads experiment read_inbound "$r" "$STEP_DURATION" P95_MS=20; done
}
# posts and reads together (1 post to MIXED_READS_PER_POST reads): every post makes its friends' cached pages stale,
# so this is the feed cache's hit ratio and the reads' latency under writes, which the reads step (no posts) is not
step_mixed() {
  local r
  for r in ${MIXED_RATES:-2000}; do
    load_step mixed experiment read_inbound,post_outbound "$r" "$STEP_DURATION" \
      POST_SHARE=1 INBOUND_SHARE="${MIXED_READS_PER_POST:-4}" P95_MS=50
  done
}
# the mixed load at SOAK_RATE for SOAK_DURATION, and besides its row a table of its minutes
# (OUT/soak-minutes/per-minute.md, soak_watch.py): what the services served and their p95, the fan-out delay, the
# RSS of every service and store, Cassandra's compactions; whether latency, memory or compaction drift over time
step_soak() {
  local rate=${SOAK_RATE:-2000} dir=$OUT/soak-minutes stack urls=() pids=()
  stack=$(stack_dir)
  mapfile -t urls < <(service_urls)
  pids=("$NEWSFEED_RUN"/services/pids/*.pid "$stack"/pids/{cassandra,kafka,postgresql,redis,solr}.pid)
  mkdir -p "$dir"
  # a sample when the load starts (load_step's test id: its setup's last line), then one every SOAK_SAMPLE_S
  ( klog=$NEWSFEED_RUN/reports/bench-soak-$rate-$STAMP/k6.log
    until grep -q 'setup: ' "$klog" 2>/dev/null; do sleep 0.2; done
    exec python3 ci/bench/experiment/soak_watch.py sample "$dir" "${SOAK_SAMPLE_S:-60}" "${pids[@]}" -- "${urls[@]}" ) &
  local sampler=$!
  load_step soak experiment read_inbound,post_outbound "$rate" "${SOAK_DURATION:-10m}" \
    POST_SHARE=1 INBOUND_SHARE="${MIXED_READS_PER_POST:-4}" P95_MS=50
  kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true
  python3 ci/bench/experiment/soak_watch.py table "$dir" "$stack/logs/cassandra.log" > "$dir/per-minute.md"
  cat "$dir/per-minute.md" >&2
}
# the stored data grown stage by stage (k6/grow.js: participants, friend lists of GROUP - 1 and their fan-out rows) and
# the same mixed load measured before the first stage and after each, once the stage's fan-out completed: where
# latency, memory or disk give out as the data grows, and which component first
step_growth() {
  local dir=$OUT/growth stack urls=() pids=() n=0 spec add group posts rows=0 testid rc t grow_s settle_s befriended
  stack=$(stack_dir)
  mapfile -t urls < <(service_urls)
  pids=("$NEWSFEED_RUN"/services/pids/*.pid "$stack"/pids/{cassandra,kafka,postgresql,redis,solr}.pid)
  mkdir -p "$dir"
  growth_load 0 '{"stage":0,"rows":0}'
  for spec in ${GROWTH_STAGES:-100000:1000:10 400000:10000:10 500000:100000:14}; do
    IFS=: read -r add group posts <<< "$spec"
    n=$((n + 1)) testid=bench-growth-$n-$STAMP rc=0
    log "growth: stage $n, $add participants in groups of $group, $posts posts per hub"
    python3 ci/bench/experiment/server_metrics.py snapshot "$dir/before-$n.json" "${urls[@]}"
    t=$SECONDS
    env TESTID="$testid" ADD="$add" GROUP="$group" POSTS="$posts" bash ci/bench/load.sh grow -q \
      > "$dir/grow-$n.out" 2>&1 || rc=$?
    grow_s=$((SECONDS - t))
    cp "$NEWSFEED_RUN/reports/$testid/summary.json" "$dir/grow-$n.json" 2>/dev/null || true
    [ "$rc" -eq 0 ] || log "growth: k6/grow.js exited $rc (see $dir/grow-$n.out)"
    read -r befriended accepted < <(jq -r '[.metrics.grow_followers.values.count // 0,
      .metrics.grow_posts.values.count // 0] | map(floor) | "\(.[0]) \(.[1])"' "$dir/grow-$n.json" 2>/dev/null \
      || echo 0 0)
    # every follower of a hub gets each of its accepted posts (all of them when k6 exited 0)
    rows=$((rows + befriended * posts))
    t=$SECONDS
    settle_s=$(python3 ci/bench/experiment/server_metrics.py settle "$dir/before-$n.json" "$accepted" \
      "${GROWTH_SETTLE_TIMEOUT_S:-3600}" "${urls[@]}") || settle_s=-
    log "growth: stage $n grown in $grow_s s, its $accepted posts fanned out $((SECONDS - t)) s later"
    growth_load "$n" "{\"stage\":$n,\"rows\":$rows,\"grow_s\":$grow_s,\"settle_s\":\"$settle_s\",\"k6_exit\":$rc}"
  done
  python3 ci/bench/experiment/growth_watch.py table "$dir" "$RESULTS" > "$dir/stages.md"
  cat "$dir/stages.md" >&2
}
# growth_load N JSON: the mixed load of stage N, then the stage's record (JSON and the stores' counts, memory, disk);
# called from step_growth, whose dir, pids and stack it reads
growth_load() {
  local participants friendships first last cold redis
  # the cold reads draw from every participant there is before the load (the grown ones, all but a few thousand)
  read -r first last < <(stack_sql "SELECT min(id), max(id) FROM participant")
  load_step "growth-$1" experiment read_inbound,post_outbound,read_cold "${GROWTH_RATE:-1000}" \
    "${GROWTH_DURATION:-60s}" POST_SHARE=1 INBOUND_SHARE="${MIXED_READS_PER_POST:-4}" \
    COLD_SHARE="${GROWTH_COLD_READS_PER_POST:-1}" COLD_IDS="$first:$last" P95_MS=50
  # k6's p95 of the cold reads (the load's row has the first scenario's, the warm reads)
  cold=$(jq '.metrics["http_req_duration{scenario:read_cold}"].values["p(95)"] // null' "$LOAD_DIR/summary.json" \
    2>/dev/null) || cold=null
  read -r participants friendships < <(stack_sql \
    "SELECT (SELECT count(*) FROM participant), (SELECT count(*) / 2 FROM friendship)")
  # Redis' own view: its process memory (the memory table) is not what maxmemory bounds, and what it evicted shows
  # whether the cache still holds the working set
  redis=$(stack_redis INFO | awk -F: '/^used_memory:/ { u = $2 } /^maxmemory:/ { m = $2 } /^evicted_keys:/ { e = $2 }
    /^db0:/ { split($2, kv, "[=,]"); k = kv[2] }
    END { if (u) printf "{\"used_memory_mib\":%.0f,\"maxmemory_mib\":%.0f,\"evicted_keys\":%d,\"keys\":%d}",
            u / 1048576, m / 1048576, e, k }') || redis=
  python3 ci/bench/experiment/growth_watch.py stage "$dir/stage-$1.json" \
    "$(jq -c --argjson p "${participants:-null}" --argjson f "${friendships:-null}" --argjson c "${cold:-null}" \
      --argjson r "${redis:-null}" '. + {participants: $p, friendships: $f, cold_read_p95_ms: $c, redis: $r}' \
      <<< "$2")" "${pids[@]}" -- \
    "$stack"/{cassandra,kafka,postgresql,redis,solr}
}
# one command to the stack's Redis, its answer without the protocol's carriage returns
stack_redis() {
  # shellcheck source=/dev/null   # the stack env file: REDIS_URL
  ( set -a; . "$(stack_env)"; set +a; redis-cli -u "$REDIS_URL" "$@" ) | tr -d '\r'
}
# one query in the stack's PostgreSQL as the services' user, its row's cells separated by spaces
stack_sql() {
  # shellcheck source=/dev/null   # the stack env file: PG_* and the other stores' settings
  ( set -a; . "$(stack_env)"; set +a
    PGPASSWORD=$PG_PASSWORD psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$PG_DATABASE" -AtF ' ' -c "$1" )
}
step_search() {
  local r
  for r in ${SEARCH_RATES:-50 100 200}; do
    load_step search experiment search "$r" "$STEP_DURATION" INBOUND_SHARE=0 SEARCH_SHARE=1 PREFILL_POSTS=5
  done
}

# k6 times the post until the last of 200 sampled feeds shows it; inbound's own timer, polled while the posts run,
# gives each post's fan-out as the service measured it: post accepted -> the last friend's row acknowledged
step_fanout() {
  local n k testid dir rc urls=()
  mapfile -t urls < <(service_urls inbound)
  for n in ${FANOUT_FOLLOWERS:-1000 10000}; do
    # a count measured again in the same run (FANOUT_FOLLOWERS="100000 100000") gets a directory of its own
    dir=$OUT/fanout-$n k=1
    while [ -e "$dir" ]; do k=$((k + 1)); dir=$OUT/fanout-$n-$k; done
    testid=bench-${dir##*/}-$STAMP rc=0
    mkdir -p "$dir"
    log "fanout: $n followers"
    local t=$SECONDS klog=$NEWSFEED_RUN/reports/$testid/k6.log
    # inbound's timer is watched from before the setup (which posts nothing), so that a quick first fan-out cannot
    # end before the watcher's first look
    python3 ci/bench/experiment/server_metrics.py fanouts "$dir/fanouts.jsonl" "${urls[@]}" &
    local timer=$!
    # the CPU split starts after the setup that befriends the followers and ends at the second post's line, while k6
    # still runs: k6 exits right after the third, and an exited process's CPU is gone from the split
    ( until grep -q 'setup: poster' "$klog" 2>/dev/null; do sleep 0.2; done
      python3 ci/bench/experiment/cpu_split.py snapshot "$dir/cpu-before.json" "${CPU_DIRS[@]}"
      until [ "$(grep -c 'fanout post ' "$klog" 2>/dev/null)" -ge 2 ]; do sleep 0.2; done
      python3 ci/bench/experiment/cpu_split.py snapshot "$dir/cpu-after.json" "${CPU_DIRS[@]}" ) &
    local watcher=$!
    # a post that reaches every sampled feed within the timeout is a result, however slow: k6's p95 threshold is the
    # timeout (fanout.js's default 30 s would fail a 1,000,000-follower run that completed)
    local timeout_s=${FANOUT_TIMEOUT_S:-180}
    env TESTID="$testid" FOLLOWERS="$n" SAMPLE=200 POSTS=3 FANOUT_TIMEOUT_S="$timeout_s" \
      FANOUT_P95_MS=$((timeout_s * 1000)) FANOUT_BATCH=100 bash ci/bench/load.sh fanout -q > "$dir/k6.out" 2>&1 || rc=$?
    sleep 1
    kill "$watcher" "$timer" 2>/dev/null || true; wait "$watcher" "$timer" 2>/dev/null || true
    cp "$NEWSFEED_RUN/reports/$testid/summary.json" "$dir/" 2>/dev/null || true
    local v=- p95=- max=- cpu=- server=-
    if [ -f "$dir/summary.json" ]; then
      read -r v p95 max < <(jq -r '.metrics.fanout_complete_ms.values // {} | "\(.med // "-") \(.["p(95)"] // "-") \(.max // "-")"' "$dir/summary.json")
    fi
    if [ -f "$dir/cpu-before.json" ]; then
      [ -f "$dir/cpu-after.json" ] || python3 ci/bench/experiment/cpu_split.py snapshot "$dir/cpu-after.json" "${CPU_DIRS[@]}"
      cpu=$(python3 ci/bench/experiment/cpu_split.py diff "$dir/cpu-before.json" "$dir/cpu-after.json")
    fi
    [ -f "$dir/fanouts.jsonl" ] && server=$(python3 ci/bench/experiment/server_metrics.py fanout-delays "$dir/fanouts.jsonl")
    row fanout "followers=$n" - - "$v" "$p95" "$max" - - "$rc" "$(loadavg)" "$cpu" "$server"
    log "fanout: $n followers, run $((SECONDS - t)) s"
    tail -n 1 "$RESULTS" >&2
  done
}

# the machine's limit for fan-out rows: Cassandra alone through fan-out's write path (row_limit.sh), no Kafka,
# social-graph or cache in the way; the services stay up, idle
step_rows() {
  local dir=$OUT/rows writes batch n seconds per_s cpu rc=0
  log "rows: fan-out's write path alone, ${ROW_LIMIT_ROWS:-400000} rows per setting"
  CPU_DIRS="${CPU_DIRS[*]}" bash ci/bench/experiment/row_limit.sh "$dir" > "$OUT/rows.tsv" || rc=$?
  while IFS=$'\t' read -r writes batch n seconds per_s cpu; do
    row rows "writes=$writes,batch_rows=$batch" - "$per_s" - - - - - "$rc" "$(loadavg)" "$cpu" \
      "{\"rows\":$n,\"seconds\":$seconds}"
    tail -n 1 "$RESULTS" >&2
  done < "$OUT/rows.tsv"
  [ "$rc" -eq 0 ] || log "rows: row_limit.sh failed (rc $rc), see $dir"
}

step_memory() {
  local f inst pid
  for f in "$NEWSFEED_RUN"/services/pids/*.pid; do
    inst=$(basename "$f" .pid); read -r pid _ < "$f"
    row memory "$inst" - "$(awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")MiB" \
      "$(awk '/^VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")MiB" - - - - - "$(loadavg)" - -
  done
}

# the same offered overload with outbound unbounded (0) and bounded: what the accepted posts cost, and how many
step_overload() {
  local limit vus=${OVERLOAD_VUS:-1500} slow=${OVERLOAD_SLOW_STORE:-}
  for limit in ${OVERLOAD_LIMITS:-0 512}; do
    SERVICE_ENV="${SERVICE_ENV:-} HTTP_MAX_IN_FLIGHT=$limit" bash ci/local/services.sh restart outbound-1 >&2
    WARMUP_DURATION=${OVERLOAD_WARMUP:-30s} step_warmup
    [ -z "$slow" ] || bash ci/tests/faults/inject.sh slow "$slow" >&2
    load_step "overload-max-in-flight-$limit${slow:+-slow-$slow}" experiment post_outbound "${OVERLOAD_RATE:-2500}" \
      "$STEP_DURATION" POST_SHARE=1 INBOUND_SHARE=0 P95_MS=50 PRE_ALLOCATED_VUS="$vus" MAX_VUS="$vus"
    [ -z "$slow" ] || bash ci/tests/faults/inject.sh clear >&2
  done
  bash ci/local/services.sh restart outbound-1 >&2   # back to its own settings for the steps after this one
}

step_profile() {
  local svc pids=()
  for svc in outbound inbound social-graph; do
    pids+=("$(pid_of "$svc-1")")
  done
  bash ci/bench/experiment/profiler.sh lib >/dev/null
  log "profile: posts at ${PROFILE_RATE:-500}/s, async-profiler attached after setup"
  ( until grep -q 'setup: ' "$NEWSFEED_RUN/reports/bench-profile-${PROFILE_RATE:-500}-$STAMP/k6.log" 2>/dev/null; do sleep 0.2; done
    for p in "${pids[@]}"; do bash ci/bench/experiment/profiler.sh start "$p" >&2; done ) &
  local starter=$!
  load_step profile experiment post_outbound "${PROFILE_RATE:-500}" "$STEP_DURATION" POST_SHARE=1 INBOUND_SHARE=0
  wait "$starter" || true
  local i=0
  for svc in outbound inbound social-graph; do
    bash ci/bench/experiment/profiler.sh stop "${pids[$i]}" "$OUT/profiles/$svc.collapsed" >&2 || log "no profile of $svc"
    [ -s "$OUT/profiles/$svc.collapsed" ] && python3 ci/bench/experiment/profile_summary.py "$OUT/profiles/$svc.collapsed" > "$OUT/profiles/$svc.md"
    i=$((i + 1))
  done
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(startup warmup posts target reads mixed search fanout rows memory profile)
for s in "${steps[@]}"; do
  declare -F "step_$s" >/dev/null || { log "unknown step $s"; exit 2; }
  "step_$s"
done
column -t -s $'\t' "$RESULTS" >&2 || cat "$RESULTS" >&2
