#!/usr/bin/env python3
"""The capacity search of ci/bench/experiment.sh --capacity: judges one step against the objective and picks the next
offered rate from the steps so far (steps.jsonl, one judged step per line), so the search has no other state.

  capacity_search.py judge MEASURE_JSON --replicas N --step K --offered R --duration S --k6-exit RC
                     --kind http|events|api --slo-ms MS --max-error-ratio E --max-dropped D [--cpu-split FILE]
      prints the step as one JSON line: measure.py's row plus offered, achieved (per second, of the throughput
      kind), dropped_share, objective_p95_ms, held (true/false) and why it broke.
      A step holds when the p95 of the objective is at most --slo-ms (the service's own HTTP histogram; for the
      events kind the post -> fanned out / indexed delay), the error ratio (the service's 5xx and k6's failed
      requests, the higher) at most --max-error-ratio, k6 dropped at most --max-dropped of the iterations offered,
      and k6 ran its load (exit 0, or 99: a threshold of the script failed, which is no verdict here).
  capacity_search.py start STEPS --replicas N --start-rate R --next-fraction F --max-rate M --min-rate m
      the first rate for N: F x N/P x capacity(P) of the largest count P < N already searched that has one,
      else --start-rate.
  capacity_search.py next STEPS --replicas N --start R --growth G --resolution X --max-rate M --min-rate m
                     --max-steps K
      the next rate for N, or `done <reason>`: from the start rate it multiplies by G while steps hold (up to M)
      and divides by G while they break (down to m), then bisects between the highest rate that held and the
      lowest that broke until broke - held <= X x held.
  capacity_search.py capacity STEPS --replicas N
      JSON {capacity, broken_at, status}: the highest offered rate that held (steps of N), the lowest that broke.
"""
import argparse
import json
import sys


def read_steps(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def load_steps(path, replicas):
    return [r for r in read_steps(path) if int(r["replicas"]) == replicas]


def rate(x):
    """Offered rates with 4 significant digits (k6 takes them per minute: 2.5/s is 150/min)."""
    return float(f"{x:.4g}")


def capacity(steps):
    """What the steps of one count found: capacity = highest held rate, broken_at = lowest broken rate."""
    held = [s["offered"] for s in steps if s["held"]]
    broken = [s["offered"] for s in steps if not s["held"]]
    lo, hi = (max(held) if held else None), (min(broken) if broken else None)
    if lo is None and hi is None:
        status = "not searched"
    elif lo is None:
        status = "none held"            # even the lowest rate tried broke
    elif hi is None:
        status = "capped"               # every rate up to the highest tried held
    else:
        status = "found"
    return {"capacity": lo, "broken_at": hi, "status": status,
            "resolution": None if lo is None or hi is None else round((hi - lo) / lo, 4)}


def next_rate(steps, a):
    if not steps:
        return rate(min(max(a.start, a.min_rate), a.max_rate)), None
    if len(steps) >= a.max_steps:
        return None, f"step limit ({a.max_steps})"
    c = capacity(steps)
    lo, hi = c["capacity"], c["broken_at"]
    if hi is None:                      # everything held so far: grow
        if lo >= a.max_rate:
            return None, f"held at --max-rate {a.max_rate:g}"
        return rate(min(lo * a.growth, a.max_rate)), None
    if lo is None:                      # everything broke so far: shrink
        if hi <= a.min_rate:
            return None, f"broke at --min-rate {a.min_rate:g}"
        return rate(max(hi / a.growth, a.min_rate)), None
    if hi - lo <= a.resolution * lo:
        return None, f"within {a.resolution:.0%}"
    mid = rate((lo + hi) / 2)
    if not lo < mid < hi:
        return None, "no rate left between held and broken"
    return mid, None


def start_rate(path, a):
    found = {}
    for r in read_steps(path):
        n = int(r["replicas"])
        if n < a.replicas and r["held"]:
            found[n] = max(found.get(n, 0), r["offered"])
    if not found:
        return rate(a.start_rate)
    p = max(found)
    return rate(min(max(a.next_fraction * a.replicas / p * found[p], a.min_rate), a.max_rate))


def judge(a):
    with open(a.measure, encoding="utf-8") as f:
        row = json.load(f)
    offered_iterations = a.offered * a.duration
    per_min = row.get("throughput_per_min")
    events = a.kind == "events"
    p95 = row.get("async_p95_ms") if events else row.get("p95_ms")
    errors = max(row.get("error_ratio") or 0, row.get("api_error_ratio") or 0)
    dropped = row.get("dropped_iterations") or 0
    dropped_share = round(dropped / offered_iterations, 5) if offered_iterations > 0 else None
    reasons = []
    if a.k6_exit not in (0, 99):
        reasons.append(f"k6 exit {a.k6_exit}")
    if p95 is None:
        reasons.append("no p95 measured")
    elif p95 > a.slo_ms:
        reasons.append(f"p95 {p95:g} ms > {a.slo_ms:g} ms")
    if errors > a.max_error_ratio:
        reasons.append(f"errors {errors:.4f} > {a.max_error_ratio:g}")
    if dropped_share is not None and dropped_share > a.max_dropped:
        reasons.append(f"dropped {dropped_share:.2%} > {a.max_dropped:.0%}")
    row.update({
        "replicas": a.replicas, "step": a.step, "offered": a.offered, "k6_exit": a.k6_exit,
        "achieved": None if per_min is None else round(per_min / 60, 2),
        "objective": "async delay" if events else "service http", "objective_p50_ms":
            row.get("async_p50_ms") if events else row.get("p50_ms"),
        "objective_p95_ms": p95, "slo_ms": a.slo_ms, "errors": errors, "dropped_share": dropped_share,
        "held": not reasons, "broke_on": "; ".join(reasons),
    })
    if a.cpu_split:
        try:
            with open(a.cpu_split, encoding="utf-8") as f:
                row["cpu_split"] = json.load(f)
        except (OSError, ValueError):
            row["cpu_split"] = None
    print(json.dumps(row))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("judge")
    j.add_argument("measure")
    for name, typ in (("--replicas", int), ("--step", int), ("--offered", float), ("--duration", float),
                      ("--k6-exit", int), ("--slo-ms", float), ("--max-error-ratio", float),
                      ("--max-dropped", float)):
        j.add_argument(name, type=typ, required=True)
    j.add_argument("--kind", choices=("http", "events", "api"), required=True)
    j.add_argument("--cpu-split")
    s = sub.add_parser("start")
    s.add_argument("steps")
    for name, typ in (("--replicas", int), ("--start-rate", float), ("--next-fraction", float),
                      ("--max-rate", float), ("--min-rate", float)):
        s.add_argument(name, type=typ, required=True)
    n = sub.add_parser("next")
    n.add_argument("steps")
    for name, typ in (("--replicas", int), ("--start", float), ("--growth", float), ("--resolution", float),
                      ("--max-rate", float), ("--min-rate", float), ("--max-steps", int)):
        n.add_argument(name, type=typ, required=True)
    c = sub.add_parser("capacity")
    c.add_argument("steps")
    c.add_argument("--replicas", type=int, required=True)
    a = p.parse_args()
    if a.cmd == "judge":
        judge(a)
    elif a.cmd == "start":
        print(f"{start_rate(a.steps, a):g}")
    elif a.cmd == "next":
        r, why = next_rate(load_steps(a.steps, a.replicas), a)
        print(f"{r:g}" if why is None else f"done {why}")
    else:
        print(json.dumps(capacity(load_steps(a.steps, a.replicas))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
