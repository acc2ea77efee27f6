"""Checks the social-graph ledger (graph_ledger.py) against PostgreSQL itself: every participant answered 200 is
stored once, under the id it was answered with, and every friendship answered 200 has both its rows; a write never
answered 200 is stored nowhere, once social-graph's background cancellations have run (waited for up to --settle
seconds). Prints `ok - ...` / `FAIL - ...` lines and a summary line of counts.

Usage: graph_verify.py OUT_DIR [--settle 90]
Environment: PG_HOST, PG_PORT, PG_DATABASE, PG_USER, PG_PASSWORD (the stack's, as ci/local/stack.sh writes them).
"""
import argparse
import json
import os
import subprocess
import time


def sql(query):
    env = dict(os.environ, PGPASSWORD=os.environ["PG_PASSWORD"])
    out = subprocess.run(["psql", "-h", os.environ["PG_HOST"], "-p", os.environ["PG_PORT"], "-U", os.environ["PG_USER"],
                          "-d", os.environ["PG_DATABASE"], "-qAtX", "-v", "ON_ERROR_STOP=1", "-c", query],
                         env=env, check=True, capture_output=True, text=True).stdout
    return [row.split("|") for row in out.splitlines() if row]


def stored(run, pairs):
    """participant name -> [ids] of the run's writes; the set of (from, to) rows among the pool's pairs."""
    names = {}
    for name, pid in sql(f"SELECT name, id FROM participant WHERE name LIKE 'fault graph {run} %'"):
        names.setdefault(name, []).append(int(pid))
    ends = ",".join(str(i) for pair in pairs for i in pair) or "0"
    rows = {(int(f), int(t)) for f, t in sql(f"SELECT from_id, to_id FROM friendship WHERE from_id IN ({ends})")}
    return names, rows


def judge(writes, names, rows):
    """Counts by outcome and the problems found: lost, duplicated, phantom (failed yet stored)."""
    counts = {"acknowledged": 0, "failed": 0, "lost": 0, "duplicated": 0, "phantom": 0}
    problems = []
    for w in writes:
        ok = w["outcome"] == "acknowledged"
        counts["acknowledged" if ok else "failed"] += 1
        if w["kind"] == "participant":
            ids = names.get(w["name"], [])
            if ok and ids != [w["id"]]:
                counts["lost" if not ids else "duplicated"] += 1
                problems.append(f"participant {w['name']!r} answered 200 with id {w['id']}: stored as {ids}")
            elif not ok and ids:
                counts["phantom"] += 1
                problems.append(f"participant {w['name']!r} answered {w['statuses']}: stored as {ids}")
        else:
            a, b = w["pair"]
            there = [(a, b) in rows, (b, a) in rows]
            if ok and not all(there):
                counts["lost"] += 1
                problems.append(f"friendship {a}-{b} answered 200: rows (a,b), (b,a) there: {there}")
            elif not ok and any(there):
                counts["phantom"] += 1
                problems.append(f"friendship {a}-{b} answered {w['statuses']}: rows (a,b), (b,a) there: {there}")
    return counts, problems


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out_dir")
    p.add_argument("--settle", type=float, default=90.0)
    a = p.parse_args()
    pool = json.load(open(os.path.join(a.out_dir, "graph-pool.json")))
    writes = [json.loads(line) for line in open(os.path.join(a.out_dir, "graph.jsonl"))]
    deadline = time.monotonic() + a.settle
    while True:
        counts, problems = judge(writes, *stored(pool["run"], pool["pairs"]))
        if not problems or time.monotonic() > deadline:
            break
        time.sleep(3)
    failed = {k: sum(1 for w in writes if w["kind"] == k and w["outcome"] != "acknowledged")
              for k in ("participant", "friendship")}
    print(f"# social-graph ledger: {json.dumps(counts)}; never answered 200: {json.dumps(failed)}", flush=True)
    for problem in problems[:20]:
        print(f"# {problem}", flush=True)
    rc = 0
    for what, bad in (("lost", counts["lost"]), ("duplicated", counts["duplicated"]),
                      ("phantom (answered as failed, yet stored)", counts["phantom"])):
        ok = bad == 0
        rc |= not ok
        print(f"{'ok' if ok else 'FAIL'} - social-graph ledger: {bad} {what} of {len(writes)} writes", flush=True)
    ok = all(failed.values())
    rc |= not ok
    print(f"{'ok' if ok else 'FAIL'} - social-graph ledger: the fault failed both kinds of write "
          f"({failed['participant']} creates, {failed['friendship']} befriends never answered 200)", flush=True)
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
