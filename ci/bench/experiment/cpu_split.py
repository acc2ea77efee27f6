#!/usr/bin/env python3
"""Where the machine's CPU goes during a benchmark step: CPU time of every process, grouped (k6, each
service, each store, Prometheus, nginx, other), from /proc/<pid>/stat before and after.

Usage: cpu_split.py snapshot FILE [RUN_DIR...]  write the CPU ticks of every process (JSON); with RUN_DIRs, a
                                             process that names none of them in its command line or its
                                             environment (another stack, a build) is grouped as "not this run"
       cpu_split.py diff BEFORE AFTER         print JSON {group: cores} over the time between the snapshots
"""
import json
import os
import re
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")
# (group, regular expression on the command line); the first match wins. Service jars are
# services/<name>/target/<name>.jar or copies named <name>-<hash>.jar (ci/local/services.sh)
GROUPS = [("k6", r"/k6 "), ("social-graph", r"/social-graph[-.][^ /]*jar"), ("outbound", r"/outbound[-.][^ /]*jar"),
          ("inbound", r"/inbound[-.][^ /]*jar"), ("search", r"/search[-.][^ /]*jar"),
          ("row writer", r"RowWriteLimit"),   # row_limit.sh's client: its classpath names the Cassandra driver
          ("cassandra", "cassandra"),
          ("kafka lag exporter", "KafkaLagExporter"),   # beside Kafka, its classpath names Kafka's jars
          ("kafka", "kafka"), ("solr", "solr"), ("postgresql", "postgres"), ("redis", "redis-server"),
          ("prometheus", "prometheus"), ("nginx", "nginx"), ("other java (builds, tests)", "java")]


def group_of(cmdline):
    for name, pattern in GROUPS:
        if re.search(pattern, cmdline):
            return name
    return "other"


def snapshot(run_dirs=()):
    procs = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            env = ""
            if run_dirs:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    env = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        procs[pid] = {"start": fields[19], "ticks": int(fields[11]) + int(fields[12]), "group": group_of(cmd),
                      "ppid": fields[1],
                      "mine": not run_dirs or any(d in cmd or d in env for d in run_dirs)}
    # a child of a process of this run belongs to it too (PostgreSQL backends name no directory)

    def mine(pid, depth=0):
        p = procs.get(pid)
        return bool(p) and (p["mine"] or (depth < 20 and mine(p["ppid"], depth + 1)))

    for pid, p in procs.items():
        if not mine(pid):
            p["group"] = "not this run"
    return {"time": time.time(), "procs": procs}


def diff(before, after):
    seconds = after["time"] - before["time"]
    cores = {}
    for pid, p in after["procs"].items():
        b = before["procs"].get(pid)
        base = b["ticks"] if b and b["start"] == p["start"] else 0   # a process born in between counts fully
        cores[p["group"]] = cores.get(p["group"], 0) + (p["ticks"] - base) / TICKS / seconds
    return {k: round(v, 3) for k, v in sorted(cores.items(), key=lambda kv: -kv[1]) if v >= 0.005}


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "snapshot":
        with open(sys.argv[2], "w", encoding="utf-8") as f:
            json.dump(snapshot(sys.argv[3:]), f)
    elif len(sys.argv) == 4 and sys.argv[1] == "diff":
        with open(sys.argv[2], encoding="utf-8") as f:
            before = json.load(f)
        with open(sys.argv[3], encoding="utf-8") as f:
            after = json.load(f)
        print(json.dumps(diff(before, after)))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
