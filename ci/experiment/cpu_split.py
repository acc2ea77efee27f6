#!/usr/bin/env python3
"""Where the machine's CPU goes during a benchmark step: CPU time of every process, grouped (k6, each
service, each store, Prometheus, nginx, other), from /proc/<pid>/stat before and after.

Usage: cpu_split.py snapshot FILE            write the CPU ticks of every process (JSON)
       cpu_split.py diff BEFORE AFTER         print JSON {group: cores} over the time between the snapshots
"""
import json
import os
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")
# (group, substring of the command line); the first match wins
GROUPS = [("k6", "/bin/k6"), ("social-graph", "social-graph.jar"), ("outbound", "outbound.jar"),
          ("inbound", "inbound.jar"), ("search", "search.jar"), ("cassandra", "cassandra"), ("kafka", "kafka"),
          ("solr", "solr"), ("postgresql", "postgres"), ("redis", "redis-server"), ("prometheus", "prometheus"),
          ("nginx", "nginx"), ("maven/other java", "java")]


def group_of(cmdline):
    for name, needle in GROUPS:
        if needle in cmdline:
            return name
    return "other"


def snapshot():
    procs = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        procs[pid] = {"start": fields[19], "ticks": int(fields[11]) + int(fields[12]), "group": group_of(cmd)}
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
    if len(sys.argv) == 3 and sys.argv[1] == "snapshot":
        with open(sys.argv[2], "w", encoding="utf-8") as f:
            json.dump(snapshot(), f)
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
