#!/usr/bin/env python3
"""The stages of benchmarks.sh's growth step: what each stored, and the table of the stages beside their load.

  growth_watch.py stage FILE JSON PID_FILE... -- DIR...
      FILE gets the object JSON (the stage's counts and timings, from the step) with the memory of each process named
      by a pid file and its children ("memory_mib", by the file's name without .pid: the sum of their proportional
      set sizes, so PostgreSQL's backends count and the memory they share counts once) and the disk used by each
      directory ("disk_mib", by its base name: a store's data, logs and commit log under the stack's run dir)
  growth_watch.py table DIR RESULTS
      Markdown tables of the stages DIR/stage-N.json joined with their load rows of RESULTS (step growth-N): the
      stored data, what the mixed load got (k6's and the services' p95, feed cache hits, CPU by component), and
      the memory and disk of every component, and Redis' own used memory against its maxmemory, its keys and the
      keys it evicted so far (the stage's "redis"); k6's p95 of the cold reads from the stage's cold_read_p95_ms
"""
import glob
import json
import os
import re
import sys

from soak_watch import POST, READ, process_name


def disk_mib(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass                     # a file compacted or rolled away while walking
    return round(total / 2**20)


def children():
    """parent pid -> the pids of its children, of every process now"""
    tree = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                parent = f.read().rsplit(")", 1)[1].split()[1]
        except (OSError, IndexError):
            continue                     # a process that ended while listing
        tree.setdefault(parent, []).append(pid)
    return tree


def pss_kib(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("Pss:")), 0)
    except OSError:
        return 0


def tree_memory_mib(pid_file, tree):
    try:
        with open(pid_file) as f:
            todo = [f.read().split()[0]]
    except (OSError, IndexError):
        return None                      # a process that is gone has no memory to report
    total = 0
    while todo:
        pid = todo.pop()
        total += pss_kib(pid)
        todo.extend(tree.get(pid, []))
    return round(total / 1024) if total else None


def stage(path, counts, pid_files, dirs):
    record = json.loads(counts)
    tree = children()
    record["memory_mib"] = {process_name(p): tree_memory_mib(p, tree) for p in pid_files}
    record["disk_mib"] = {os.path.basename(d.rstrip("/")): disk_mib(d) for d in dirs}
    with open(path, "w") as f:
        json.dump(record, f)


def load_rows(results):
    """step -> the row's cells by column name (results.tsv of benchmarks.sh)"""
    with open(results) as f:
        head = f.readline().rstrip("\n").split("\t")
        return {cells[0]: dict(zip(head, cells)) for cells in (line.rstrip("\n").split("\t") for line in f)}


def as_json(cell):
    try:
        return json.loads(cell)
    except (TypeError, ValueError):
        return {}


def parsed(load):
    """A load row with its JSON cells read once: (row, CPU cores by component, the services' view)."""
    return load, as_json(load.get("cpu_cores")), as_json(load.get("server"))


def rounded(ms):
    return "-" if ms is None else f"{ms:.2f}"


def thousands(n):
    return "-" if n is None else f"{n:,}"


def print_table(head, rows):
    print("| " + " | ".join(head) + " |")
    print("|" + "---:|" * len(head))
    for cells in rows:
        print("| " + " | ".join(str(c) for c in cells) + " |")
    print()


def table(out_dir, results):
    stages = sorted(glob.glob(os.path.join(out_dir, "stage-*.json")),
                    key=lambda p: int(re.search(r"stage-(\d+)", p).group(1)))
    records = [json.load(open(p)) for p in stages]
    rows = load_rows(results)
    loads = [parsed(rows.get(f"growth-{r['stage']}", {})) for r in records]
    groups = sorted({g for _, cpu, _ in loads for g in cpu},
                    key=lambda g: -max(cpu.get(g, 0) for _, cpu, _ in loads))[:6]
    print_table(["stage", "participants", "friendships", "rows grown", "grown in (s)", "fan-out settled in (s)",
                 "achieved/s", "k6 read p95 ms", "k6 cold read p95 ms", "post p95 ms", "read p95 ms", "feed hits"]
                + [f"{g} cores" for g in groups],
                [[r["stage"], thousands(r.get("participants")), thousands(r.get("friendships")),
                  thousands(r.get("rows")), r.get("grow_s", "-"), r.get("settle_s", "-"),
                  load.get("achieved_per_s", "-"), load.get("p95_ms", "-"), rounded(r.get("cold_read_p95_ms")),
                  server.get(POST, {}).get("p95", "-"), server.get(READ, {}).get("p95", "-"),
                  server.get("cache_hits", {}).get("inbound", "-")]
                 + [cpu.get(g, "-") for g in groups]
                 for r, (load, cpu, server) in zip(records, loads)])
    names = sorted({n for r in records for n in r["memory_mib"]})
    dirs = sorted({d for r in records for d in r["disk_mib"]})
    print_table(["stage"] + [f"{n} memory MiB" for n in names] + [f"{d} disk MiB" for d in dirs],
                [[r["stage"]] + [r["memory_mib"].get(n, "-") for n in names] + [r["disk_mib"].get(d, "-") for d in dirs]
                 for r in records])
    print_table(["stage", "redis used MiB", "redis maxmemory MiB", "redis keys", "redis evicted keys"],
                [[r["stage"]] + [thousands((r.get("redis") or {}).get(k))
                                 for k in ("used_memory_mib", "maxmemory_mib", "keys", "evicted_keys")]
                 for r in records])


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "stage" and "--" in sys.argv:
        split = sys.argv.index("--")
        stage(sys.argv[2], sys.argv[3], sys.argv[4:split], sys.argv[split + 1:])
    elif len(sys.argv) == 4 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
