#!/usr/bin/env bash
# Suite "experiment": the scaling-experiment runner (ci/bench/experiment.sh) in local mode at a tiny scale on real
# stores and services, outbound at 1 and 2 instances behind the gateway, measured from the local Prometheus:
#  - fixed rate: a short low-rate k6 social run per count. Checks the table (one row per replica count, non-zero
#    throughput, numeric p50/p95/p99, every instance scraped) and the chart (a PNG);
#  - capacity search (--capacity): 8 s steps, at most 3 per count, k6 with a single VU, so that a high rate breaks
#    on any machine (k6 drops what one VU cannot start in time). Checks that each count found a capacity (a held
#    and a broken step, or the cap or floor the table then names), that capacity.csv's numbers are the ones
#    steps.csv gives, the two charts and the reproduce commands;
# and, after each, that nothing is left running; then the benchmark's fan-out row limit (row_limit.sh) at 20,000 rows,
# and its failure without Cassandra. Stores: $NEWSFEED_STACK_ENV when set (e.g. the stack of
# ci/tests/run.sh), otherwise a stack started here. Settings: EXPERIMENT_TEST_DURATION (20s), EXPERIMENT_TEST_RATE (10).
# Last line `experiment: N passed, N failed`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-1800}
# shellcheck source=ci/tests/lib/run_dir.sh
source ci/tests/lib/run_dir.sh
suite_run_dir experiment-test
OUT=$NEWSFEED_RUN/experiment
REPLICAS="1 2"

passed=0 failed=0
log() { echo "[experiment-test $(date +%T)] $*" >&2; }
check() {
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok - $name"; else failed=$((failed + 1)); echo "FAIL - $name"; fi
}
finish() { echo "experiment: $passed passed, $failed failed"; }

started_stack=false
cleanup() {
  local rc=$?
  # the runner stops what it started; this is the safety net for an interrupted run
  bash ci/local/services.sh stop >/dev/null 2>&1 || true
  bash ci/local/gateway.sh stop >/dev/null 2>&1 || true
  bash ci/local/prometheus.sh stop >/dev/null 2>&1 || true
  if $started_stack; then bash ci/local/stack.sh down >/dev/null 2>&1 || true; fi
  if [ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]; then rm -rf "$NEWSFEED_RUN"; else echo "kept run dir $NEWSFEED_RUN" >&2; fi
}
trap cleanup EXIT

if [ -z "${NEWSFEED_STACK_ENV:-}" ]; then
  log "starting a stack in $NEWSFEED_RUN (port offset $NEWSFEED_PORT_OFFSET)"
  started_stack=true
  if ! bash ci/local/stack.sh up >&2; then failed=$((failed + 1)); echo "FAIL - stack up"; finish; exit 1; fi
fi
missing=()
for s in social-graph outbound inbound search edge; do [ -f "services/$s/target/$s.jar" ] || missing+=("$s"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "building the service jars (missing: ${missing[*]})"
  mvn -B -q -f services/pom.xml install -DskipTests >&2 || { failed=$((failed + 1)); echo "FAIL - build"; finish; exit 1; }
fi

run_experiment() {
  bash ci/bench/experiment.sh --mode local --service outbound --replicas "$REPLICAS" --scenario social \
    --rate "${EXPERIMENT_TEST_RATE:-10}" --duration "${EXPERIMENT_TEST_DURATION:-20s}" --settle 5 --pad 8 \
    --env PROFILE=ci --out "$OUT" >&2
}
check "ci/bench/experiment.sh --mode local --replicas \"$REPLICAS\" exits 0" run_experiment

# column NAME of results.csv, one value per row
column() { python3 -c 'import csv,sys; [print(r[sys.argv[2]]) for r in csv.DictReader(open(sys.argv[1]))]' "$OUT/results.csv" "$1"; }

one_row_per_replica_count() {
  [ -f "$OUT/results.csv" ] && [ "$(column replicas | tr '\n' ' ')" = "$REPLICAS " ]
}
throughput_non_zero() {
  [ -f "$OUT/results.csv" ] || return 1
  column throughput_per_min | awk 'BEGIN { n = 0 } { if (!($1 + 0 > 0)) bad = 1; n++ } END { exit (bad || n == 0) }'
}
percentiles_numeric() {
  local c
  [ -f "$OUT/results.csv" ] || return 1
  for c in p50_ms p95_ms p99_ms api_p95_ms; do
    column "$c" | grep -vE '^[0-9]+(\.[0-9]+)?$' > /dev/null && { echo "non-numeric $c: $(column "$c" | tr '\n' ' ')" >&2; return 1; }
  done
  return 0
}
every_instance_scraped() {
  [ -f "$OUT/results.csv" ] && [ "$(column instances | tr '\n' ' ')" = "$REPLICAS " ]
}
efficiency_computed() {
  [ -f "$OUT/results.csv" ] && column efficiency | awk '{ if (!($1 + 0 > 0)) bad = 1 } END { exit bad }' \
    && [ "$(column efficiency | head -n 1)" = 1.0 ]
}
markdown_table() { [ -f "$OUT/results.md" ] && [ "$(grep -cE '^\| [0-9]+ \|' "$OUT/results.md")" -eq 2 ]; }
png_chart() { [ -s "$OUT/throughput.png" ] && [ "$(head -c 8 "$OUT/throughput.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
nothing_left_running() {
  local port
  for port in 18080 18081 18082 18092 18083 18084 19090; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$((port + NEWSFEED_PORT_OFFSET))") 2>/dev/null; then
      echo "port $((port + NEWSFEED_PORT_OFFSET)) still open" >&2; return 1
    fi
  done
}

# cluster mode without a cluster: the plan of helm/kubectl commands it would run (--dry-run)
cluster_plan() {
  local plan
  plan=$(bash ci/bench/experiment.sh --mode cluster --dry-run --service inbound --replicas "1 3" --rate 100 --duration 1m \
    --release nf --namespace bench --values values/scaling/example.yaml --out "$NEWSFEED_RUN/plan" 2>&1) || return 1
  grep -qF "helm upgrade nf charts/newsfeed -n bench --reuse-values -f values/scaling/example.yaml --set inbound.replicaCount=3" <<< "$plan" \
    && grep -qF "create job --from=cronjob/nf-k6-social exp-inbound-r3-run-" <<< "$plan" \
    && grep -qF "TESTID=exp-inbound-r3-run-" <<< "$plan" || { echo "$plan" >&2; return 1; }
}
check "cluster mode --dry-run: helm upgrade --set inbound.replicaCount=N, the k6 CronJob as a Job per count" cluster_plan

check "results.csv: one row per replica count ($REPLICAS)" one_row_per_replica_count
check "results.csv: non-zero throughput in every row" throughput_non_zero
check "results.csv: numeric p50/p95/p99 (service) and p95 (k6)" percentiles_numeric
check "results.csv: Prometheus scraped every instance of each run" every_instance_scraped
check "results.csv: scaling efficiency (1.0 at one replica)" efficiency_computed
check "results.md: a table row per replica count" markdown_table
check "throughput.png: a PNG chart" png_chart
check "the runner stopped the services, gateway and Prometheus it started" nothing_left_running
[ ! -f "$OUT/results.md" ] || cat "$OUT/results.md" >&2

# the capacity search: a rate of 320/s needs an iteration every 3 ms of the one VU, so it breaks (dropped
# iterations) however fast the machine; 5/s holds unless the machine is far too busy (then the table says so). The
# objective is generous (p95 <= 200 ms) for the same reason: the search's decisions on latency are checked offline.
CAP=$NEWSFEED_RUN/capacity
run_capacity() {
  bash ci/bench/experiment.sh --mode local --capacity --service outbound --replicas "$REPLICAS" --step 8s --warmup 5s \
    --settle 3 --pad 7 --start-rate 5 --growth 8 --max-rate 320 --resolution 1 --max-steps 3 --slo-ms 200 \
    --env PARTICIPANTS=20 --env FRIENDS=2 --env MAX_VUS=1 --env PRE_ALLOCATED_VUS=1 --out "$CAP" >&2
}
# the search's logic offline: each criterion breaks a step, and against a known capacity the steps bracket it
search_logic() {
  python3 - <<'EOF_PY'
import json, os, subprocess, sys, tempfile
sys.path.insert(0, "ci/bench/experiment")
from argparse import Namespace
from capacity_search import next_rate, capacity
tmp = tempfile.mkdtemp()
def judge(row, kind="http", offered=10):
    path = os.path.join(tmp, "m.json")
    json.dump({"throughput_per_min": 600, "error_ratio": 0, "api_error_ratio": 0, "dropped_iterations": 0, **row},
              open(path, "w"))
    out = subprocess.run(["python3", "ci/bench/experiment/capacity_search.py", "judge", path, "--replicas", "1", "--step",
                          "1", "--offered", str(offered), "--duration", "10", "--k6-exit", "0", "--kind", kind,
                          "--slo-ms", "50", "--max-error-ratio", "0.01", "--max-dropped", "0.02"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)
cases = [(judge({"p95_ms": 49}), True), (judge({"p95_ms": 51}), False), (judge({"p95_ms": 9, "error_ratio": 0.02}), False),
         (judge({"p95_ms": 9, "api_error_ratio": 0.02}), False), (judge({"p95_ms": 9, "dropped_iterations": 3}), False),
         (judge({"p95_ms": 9, "dropped_iterations": 2}), True), (judge({}), False),
         (judge({"p95_ms": 900, "async_p95_ms": 40}, kind="events"), True), (judge({"p95_ms": 9, "async_p95_ms": 60}, kind="events"), False)]
ok = all(row["held"] == want for row, want in cases) and cases[0][0]["achieved"] == 10
def search(true_capacity, **kw):
    a = Namespace(start=50, growth=2, resolution=0.05, max_rate=5000, min_rate=1, max_steps=30)
    vars(a).update(kw)
    steps = []
    while True:
        r, why = next_rate(steps, a)
        if why:
            return capacity(steps), len(steps)
        steps.append({"offered": r, "held": r <= true_capacity})
found, n = search(137)
capped, _ = search(1e9)
floor, _ = search(0.5)
ok = ok and found["status"] == "found" and found["capacity"] <= 137 < found["broken_at"] <= found["capacity"] * 1.05
ok = ok and capped["status"] == "capped" and capped["capacity"] == 5000 and floor["status"] == "none held"
print(f"judge: {[row['broke_on'] or 'held' for row, _ in cases]}; true 137 -> {found} in {n} steps; {capped}; {floor}",
      file=sys.stderr)
sys.exit(0 if ok else 1)
EOF_PY
}
check "capacity_search.py: p95, errors, dropped iterations and no measurement each break a step; the search brackets a known capacity within 5 %" search_logic

cap_t0=$SECONDS
check "ci/bench/experiment.sh --capacity --replicas \"$REPLICAS\" exits 0" run_capacity
log "the capacity search took $((SECONDS - cap_t0)) s"

# Per count from steps.csv alone: capacity = the highest offered rate that held, broken at = the lowest that broke,
# efficiency = capacity(N) x N0 / (N x capacity(N0)); capacity.csv must say the same. Each count has a held and a
# broken step below and above, or its status names the bound it stopped at.
capacity_from_steps() {
  python3 - "$CAP" "$REPLICAS" <<'EOF_PY'
import csv, sys
out, counts = sys.argv[1], [int(n) for n in sys.argv[2].split()]
steps = list(csv.DictReader(open(f"{out}/steps.csv")))
table = {int(r["replicas"]): r for r in csv.DictReader(open(f"{out}/capacity.csv"))}
ok, base = True, None
for n in counts:
    mine = [s for s in steps if int(s["replicas"]) == n]
    held = [float(s["offered"]) for s in mine if s["held"] == "yes"]
    broken = [float(s["offered"]) for s in mine if s["held"] == "no"]
    cap, broke = (max(held) if held else None), (min(broken) if broken else None)
    row = table.get(n, {})
    num = lambda v: float(v) if v not in (None, "") else None
    status = "found" if held and broken else "capped" if held else "none held"
    good = (num(row.get("capacity")) == cap and num(row.get("broken_at")) == broke and row.get("status") == status
            and int(row.get("steps") or 0) == len(mine) and (cap is None or broke is None or cap < broke)
            and cap is not None)
    if base is None and cap:
        base = (n, cap)
    eff = None if not cap or base is None else round(cap * base[0] / (n * base[1]), 3)
    good = good and num(row.get("efficiency")) == eff
    shown = {k: row.get(k) for k in ("capacity", "broken_at", "status", "efficiency")}
    print(f"{n} instance(s): {len(mine)} steps, held {held}, broke {broken}; table {shown}; "
          f"{'ok' if good else 'MISMATCH'}", file=sys.stderr)
    ok = ok and good
sys.exit(0 if ok else 1)
EOF_PY
}
held_and_broken() {
  [ -f "$CAP/capacity.csv" ] || return 1
  # "found" for every count, or the table's own status names the bound (capped at --max-rate, none held)
  python3 -c 'import csv,sys; rows=list(csv.DictReader(open(sys.argv[1])))
for r in rows: print(r["replicas"], r["status"], file=sys.stderr)
sys.exit(0 if rows and all(r["status"] in ("found", "capped") for r in rows) else 1)' "$CAP/capacity.csv"
}
curves() {
  local f
  for f in latency.png capacity.png; do
    [ -s "$CAP/$f" ] && [ "$(head -c 8 "$CAP/$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "no PNG $f" >&2; return 1; }
  done
}
capacity_md() {
  local n
  [ -f "$CAP/capacity.md" ] && [ "$(grep -cE '^\| [0-9]+ \| [0-9.,]+ \|' "$CAP/capacity.md")" -eq 2 ] || return 1
  for n in $REPLICAS; do
    grep -qE "^- $n: \`NEWSFEED_RUN=.* ci/bench/experiment.sh --mode local --capacity .*--replicas $n --start-rate [0-9.]+\`$" "$CAP/capacity.md" \
      || { echo "no reproduce command for $n" >&2; return 1; }
  done
}
# every process of this run's directory that the runner started is gone: k6 and the step's samplers included
no_k6_or_sampler_left() {
  python3 - "$NEWSFEED_RUN" <<'EOF_PY'
import os, sys
needle = b"NEWSFEED_RUN=" + sys.argv[1].encode() + b"\0"
ours, pid = set(), os.getpid()
while pid > 1:
    ours.add(pid)
    with open(f"/proc/{pid}/stat") as f:
        pid = int(f.read().rsplit(")", 1)[1].split()[1])
left = []
for p in filter(str.isdigit, os.listdir("/proc")):
    try:
        comm = open(f"/proc/{p}/comm").read().strip()
        env = open(f"/proc/{p}/environ", "rb").read() + b"\0"
    except OSError:
        continue
    if int(p) not in ours and comm in ("k6", "bash", "sleep", "tee", "python3") and needle in env:
        left.append(f"{p} {comm}")
print("left running: " + ", ".join(left), file=sys.stderr) if left else None
sys.exit(1 if left else 0)
EOF_PY
}
# cluster mode of the capacity search without a cluster: per count the upgrade, a warm-up Job and the first step's
# Job at the first rate with the search's k6 defaults (the later steps depend on what it measures)
cluster_capacity_plan() {
  local plan
  plan=$(bash ci/bench/experiment.sh --mode cluster --capacity --dry-run --service outbound --replicas "1 2" --start-rate 80 \
    --step 20s --release nf --namespace bench --out "$NEWSFEED_RUN/capacity-plan" 2>&1) || return 1
  grep -qF "helm upgrade nf charts/newsfeed -n bench --reuse-values --set outbound.replicaCount=2" <<< "$plan" \
    && grep -qE "create job --from=cronjob/nf-k6-experiment exp-outbound-r2-warm-.* RATE=80 DURATION=20s " <<< "$plan" \
    && grep -qE "create job --from=cronjob/nf-k6-experiment exp-outbound-r1-s1-.* RATE=80 DURATION=20s .*POST_SHARE=1 INBOUND_SHARE=0" <<< "$plan" \
    && grep -qF -- "--replicas 2 --start-rate 80" "$NEWSFEED_RUN/capacity-plan/runs/2/command.txt" || { echo "$plan" >&2; return 1; }
}
check "capacity search, cluster mode --dry-run: per count the upgrade, a warm-up Job and a first step Job" cluster_capacity_plan
check "capacity search: a capacity for each count (held below a rate that broke, or capped at --max-rate)" held_and_broken
check "capacity.csv: capacity, rate that broke, status, steps and efficiency are those of steps.csv" capacity_from_steps
check "latency.png and capacity.png: PNG charts" curves
check "capacity.md: a row per count and the command that reproduces each" capacity_md
check "the capacity search stopped the services, gateway and Prometheus it started" nothing_left_running
check "no k6 run or CPU sampler of the runner left" no_k6_or_sampler_left

# the benchmark's `rows` step (ci/bench/experiment/row_limit.sh) at a tiny scale on the stack: a line per setting with
# every row written, a rate and a CPU split; and a writer that reaches no Cassandra fails the script
stack_env() { echo "${NEWSFEED_STACK_ENV:-$NEWSFEED_RUN/stack.env}"; }
row_limit() {
  local out
  out=$(NEWSFEED_STACK_ENV=$(stack_env) ROW_LIMIT_ROWS=20000 ROW_LIMIT_SETTINGS="32:10 32:1" \
    bash ci/bench/experiment/row_limit.sh "$NEWSFEED_RUN/rows") || return 1
  echo "$out" >&2
  awk -F'\t' '$1 == 32 && ($2 == 10 || $2 == 1) && $3 == 20000 && $4 > 0 && $5 > 0 && $6 ~ /^\{.*\}$/ { n++ }
    END { exit !(n == 2 && NR == 2) }' <<< "$out"
}
row_limit_without_cassandra() {
  local env=$NEWSFEED_RUN/no-cassandra.env
  { grep -v '^CASSANDRA_CONTACT_POINTS=' "$(stack_env)"; echo CASSANDRA_CONTACT_POINTS=127.0.0.1:1; } > "$env"
  ! NEWSFEED_STACK_ENV=$env ROW_LIMIT_ROWS=100 ROW_LIMIT_SETTINGS="8:10" \
    timeout 120 bash ci/bench/experiment/row_limit.sh "$NEWSFEED_RUN/rows-refused" > /dev/null 2>&1
}
check "row_limit.sh: every row written, a rate and a CPU split per setting" row_limit
check "row_limit.sh: fails when the writer reaches no Cassandra" row_limit_without_cassandra

finish
[ "$failed" -eq 0 ]
