#!/usr/bin/env python3
"""Watches a Kafka consumer service drain a backlog (ci/bench/experiment/drain.sh) and measures its drain rate.

Usage: drain_watch.py --prometheus URL --service SVC --backlog EVENTS --since EPOCH --out DIR
                      [--poll S] [--timeout S] [--stall S] [--host-cpu FILE]

Every --poll seconds it reads each pod's newsfeed_events_total{service=SVC,event="consumed"} with the time of
its last scrape (the pods started at --since, so their counters hold only this backlog), until the pods together
have consumed --backlog events, or nothing moved for --stall seconds, or --timeout. Each pod's counter is then a
line through 0 at --since and its own scrape samples; their sum over time is the drained total. The drain rate is
taken between 25 % and 90 % of the backlog: after the group's first rebalances, before the last partitions run
dry. `exact` says whether every pod had been scraped before the 25 % point (otherwise its early part is a guess).
Writes OUT/samples.csv (pod, scrape time, counter) and prints one JSON object: backlog, consumed, the 25 %
and 90 % times, events_per_s, drained (true when the whole backlog was consumed), host_cpu_busy over the window.
"""
LOW, HIGH = 0.25, 0.9
import argparse
import csv
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "report"))
from measure import host_cpu_busy  # noqa: E402
from prom_api import query  # noqa: E402


def read(url, svc, now):
    """{pod: (scrape time, value)} of every series of the service's consumed counter."""
    sel = f'newsfeed_events_total{{service="{svc}",event="consumed"}}'
    values = {m.get("pod") or m.get("instance"): v for m, v in query(url, sel, now)}
    times = {m.get("pod") or m.get("instance"): v for m, v in query(url, f"timestamp({sel})", now)}
    return {pod: (times[pod], values[pod]) for pod in values if pod in times}


def total_at(series, t):
    """The summed counters at time t, each pod's counter linear between its samples (flat outside them)."""
    total = 0.0
    for samples in series.values():
        if t <= samples[0][0]:
            total += samples[0][1] if samples[0][0] == t else 0.0
            continue
        prev = samples[0]
        for cur in samples[1:]:
            if t <= cur[0]:
                total += prev[1] + (cur[1] - prev[1]) * (t - prev[0]) / (cur[0] - prev[0])
                break
            prev = cur
        else:
            total += prev[1]
    return total


def crossing(series, level, t_from, t_to):
    """The first time the summed counters reach level, by bisection between the samples' times; None if never."""
    times = sorted({t for s in series.values() for t, _ in s if t_from <= t <= t_to})
    last = None
    for t in times:
        if total_at(series, t) >= level:
            lo, hi = (last if last is not None else t), t
            for _ in range(40):
                mid = (lo + hi) / 2
                lo, hi = (lo, mid) if total_at(series, mid) >= level else (mid, hi)
            return hi
        last = t
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--prometheus", required=True)
    p.add_argument("--service", required=True)
    p.add_argument("--backlog", type=float, required=True)
    p.add_argument("--since", type=float, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--poll", type=float, default=2)
    p.add_argument("--timeout", type=float, default=900)
    p.add_argument("--stall", type=float, default=60)
    p.add_argument("--host-cpu")
    a = p.parse_args()

    series = {}   # pod -> [(time, counter)], starting at (since, 0): no pod existed before
    started, moved_at, last_total = time.time(), time.time(), -1.0
    while True:
        now = time.time()
        for pod, (t, v) in read(a.prometheus, a.service, now).items():
            s = series.setdefault(pod, [(a.since, 0.0)])
            if t > s[-1][0]:
                s.append((t, v))
        total = sum(s[-1][1] for s in series.values())
        if total > last_total:
            last_total, moved_at = total, now
        if total >= a.backlog or now - moved_at > a.stall or now - started > a.timeout:
            break
        time.sleep(a.poll)

    out = Path(a.out)
    with open(out / "samples.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["pod", "time", "consumed"])
        for pod, s in sorted(series.items()):
            w.writerows([pod, f"{t:.3f}", v] for t, v in s[1:])

    end = max((s[-1][0] for s in series.values()), default=a.since)
    t_low = crossing(series, LOW * a.backlog, a.since, end)
    t_high = crossing(series, HIGH * a.backlog, a.since, end)
    rate = round((HIGH - LOW) * a.backlog / (t_high - t_low), 1) if t_low and t_high and t_high > t_low else None
    first_scrapes = [s[1][0] for s in series.values() if len(s) > 1]
    result = {
        "backlog": a.backlog, "consumed": last_total, "pods": len(series), "drained": last_total >= a.backlog,
        "t_low": t_low, "t_high": t_high, "events_per_s": rate,
        "exact": bool(rate) and all(t <= t_low for t in first_scrapes),
        "seconds_to_high": round(t_high - a.since, 1) if t_high else None,
        "host_cpu_busy": host_cpu_busy(a.host_cpu, t_low, t_high) if a.host_cpu and rate else None,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
