#!/usr/bin/env python3
"""Turns the judged steps of a capacity search (steps.jsonl, written by ci/bench/experiment.sh --capacity through
capacity_search.py judge) into steps.csv (every step), capacity.csv and capacity.md (per replica count: the
capacity, the rate that broke, the efficiency, the busiest component, the command that reproduces the count),
latency.png (p50 and p95 of the objective against the achieved rate, one line per count, the objective as a
horizontal line) and capacity.png (capacity against replicas next to linear scaling).

Capacity(N) = the highest offered rate that held; efficiency = capacity(N) x N0 / (N x capacity(N0)), N0 the
smallest count with a capacity (normally 1). Every number here is computed from steps.jsonl.

Usage: capacity_report.py OUT_DIR [--title TEXT] [--no-chart]
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capacity_search import capacity, read_steps  # noqa: E402
from reports import add_efficiency, arguments, replicas_axis, save_chart, write_csv  # noqa: E402

STEP_COLUMNS = ["replicas", "step", "offered", "achieved", "p50_ms", "p95_ms", "p99_ms", "error_ratio",
                "dropped_iterations", "held", "broke_on", "objective_p50_ms", "objective_p95_ms", "slo_ms",
                "api_error_ratio", "dropped_share", "api_p95_ms", "async_p95_ms", "consumer_lag_max", "cpu_cores",
                "cpu_all_services", "host_cpu_busy", "busiest", "busiest_cores", "other_load_cores", "instances",
                "k6_exit", "throughput_kind", "testid", "t0", "t1", "duration_s"]
CAPACITY_COLUMNS = ["replicas", "capacity", "broken_at", "resolution", "status", "broke_on", "efficiency", "achieved",
                    "objective_p95_ms", "steps", "bottleneck", "bottleneck_cores", "service_cpu_cores", "host_cpu_busy",
                    "other_load_cores", "consumer_lag_max", "command"]
# cpu_split.py groups that are not part of the system under test (other work on the machine)
NOT_THE_SYSTEM = {"not this run", "other", "other java (builds, tests)"}


def other_load(step):
    """Cores the machine spent on processes outside the run (local mode): other work competing for the CPU."""
    split = step.get("cpu_split")
    return None if not split else round(sum(v for k, v in split.items() if k in NOT_THE_SYSTEM), 3)


# a scaled service using this share of its replicas' CPU limit or more is the bottleneck, whatever the others use
AT_LIMIT = 0.8


def busiest(step, meta):
    """(component, cores) that used the most CPU in the step: every process of the run (local mode,
    cpu_split.py) or every service from Prometheus (cluster mode). With a CPU limit per replica (--cpu-limit) the
    scaled service at that limit comes first: cores of a capped pod and of uncapped components do not compare."""
    limit = cores_of(meta.get("cpu_limit"))
    used = step.get("cpu_cores")
    if limit and used is not None and used >= AT_LIMIT * int(step["replicas"]) * limit:
        return f"{meta['service']} at its CPU limit", used
    split = {k: v for k, v in (step.get("cpu_split") or {}).items() if k not in NOT_THE_SYSTEM}
    source = split or step.get("cpu_by_service") or {}
    if not source:
        return None, None
    name = max(source, key=source.get)
    return name, source[name]


def per_count(steps, commands):
    rows = []
    for n in sorted({int(s["replicas"]) for s in steps}):
        mine = [s for s in steps if int(s["replicas"]) == n]
        c = capacity(mine)
        at = next((s for s in mine if s["held"] and s["offered"] == c["capacity"]), {})
        above = next((s for s in mine if not s["held"] and s["offered"] == c["broken_at"]), {})
        # busiest and other load: computed once per step by main
        rows.append({"replicas": n, **c, "broke_on": above.get("broke_on"), "achieved": at.get("achieved"),
                     "objective_p95_ms": at.get("objective_p95_ms"), "steps": len(mine),
                     "bottleneck": at.get("busiest"), "bottleneck_cores": at.get("busiest_cores"),
                     "service_cpu_cores": at.get("cpu_cores"), "host_cpu_busy": at.get("host_cpu_busy"),
                     "other_load_cores": at.get("other_load_cores"),
                     "consumer_lag_max": at.get("consumer_lag_max"), "command": commands.get(n, "")})
    add_efficiency(rows, "capacity")
    return rows


def num(value, fmt="{:,.4g}"):
    return "–" if value is None or value == "" else fmt.format(value)


def cores_of(quantity):
    """A Kubernetes CPU quantity (250m, 0.5) in cores; None when not set."""
    if not quantity:
        return None
    return float(quantity[:-1]) / 1000 if quantity.endswith("m") else float(quantity)


def write_markdown(rows, meta, path, title):
    slo = meta.get("slo_ms")
    limit = cores_of(meta.get("cpu_limit"))
    objective = ("the post → fanned out / indexed delay" if meta.get("kind") == "events"
                 else "the service's own HTTP latency (server side)")
    lines = [f"# {title}", "",
             f"Capacity = the highest offered open-loop rate (k6 iterations/s) that held: p95 of {objective} ≤ "
             f"{num(slo)} ms, error ratio (the service's 5xx and k6's failed requests) ≤ {meta.get('max_error_ratio')}, "
             f"k6 dropped ≤ {float(meta.get('max_dropped', 0)):.0%} of the iterations offered. Each step ran "
             f"{meta.get('step')} after a warm-up of {meta.get('warmup') or 'nothing'} per count; the search stops when the "
             f"lowest rate that broke is within {float(meta.get('resolution', 0)):.0%} of the highest that held (\"gap\"). "
             "Efficiency = capacity(N) / (N × capacity(1)). Broke on: why the rate above the capacity broke. Bottleneck: "
             "the component that used the most CPU in the step at capacity (every process of the run in local mode, "
             "every service in a cluster; the scaled service first when it used 80 % of its replicas' CPU limit or "
             "more; a hint where to look, not a proof); other load: cores the host spent on "
             "processes outside the run in that step (local mode), which the run had to share the CPU with. CPU in "
             "cores. Every step: steps.csv.", "",
             "| replicas | capacity (it/s) | broke at | gap | status | broke on | efficiency | achieved/s | p95 ms "
             "| steps | bottleneck (cores) | service CPU | host CPU busy | other load | consumer lag (max) |",
             "|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        status = {"found": "found", "capped": "held at the highest rate tried",
                  "none held": "broke at the lowest rate tried"}.get(r["status"], r["status"])
        bottleneck = "–" if r["bottleneck"] is None else f"{r['bottleneck']} ({r['bottleneck_cores']:.2f})"
        gap = "–" if r["resolution"] is None else f"{r['resolution']:.1%}"
        cpu = num(r["service_cpu_cores"], "{:.2f}")
        if limit and r["service_cpu_cores"] is not None:
            cpu += f" of {r['replicas'] * limit:.2f}"
        lines.append(f"| {r['replicas']} | {num(r['capacity'])} | {num(r['broken_at'])} | {gap} | {status} "
                     f"| {r['broke_on'] or '–'} | {num(r['efficiency'], '{:.2f}')} | {num(r['achieved'])} "
                     f"| {num(r['objective_p95_ms'])} | {r['steps']} | {bottleneck} | {cpu} "
                     f"| {num(r['host_cpu_busy'], '{:.2f}')} | {num(r['other_load_cores'], '{:.2f}')} "
                     f"| {num(r['consumer_lag_max'], '{:,}')} |")
    lines += ["", "Reproduce one count (the same options, that count alone, from the same first rate):", ""]
    lines += [f"- {r['replicas']}: `{r['command']}`" for r in rows if r["command"]]
    lines.append("")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def write_charts(steps, rows, meta, out, title):
    import matplotlib  # imported here: the tables need no plotting library
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=110)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, n in enumerate(sorted({int(s["replicas"]) for s in steps})):
        pts = sorted((s for s in steps if int(s["replicas"]) == n and s.get("achieved") is not None
                      and s.get("objective_p95_ms") is not None), key=lambda s: s["offered"])
        if not pts:
            continue
        color = colors[i % len(colors)]
        x = [s["achieved"] for s in pts]
        ax.plot(x, [s["objective_p95_ms"] for s in pts], "-", color=color, label=f"{n} replica{'s' if n > 1 else ''}: p95")
        ax.plot(x, [s["objective_p50_ms"] if s.get("objective_p50_ms") else float("nan") for s in pts], "--",
                color=color, alpha=0.7, label="p50")
        for s in pts:   # filled: the step held; hollow: it broke
            ax.plot(s["achieved"], s["objective_p95_ms"], "o", color=color,
                    markerfacecolor=color if s["held"] else "white")
    if meta.get("slo_ms"):
        ax.axhline(float(meta["slo_ms"]), color="tab:red", linestyle=":", label=f"objective p95 ≤ {meta['slo_ms']} ms")
    ax.plot([], [], "o", color="gray", label="step held")
    ax.plot([], [], "o", color="gray", markerfacecolor="white", label="step broke")
    ax.set_yscale("log")
    ax.set_xlabel("achieved rate (per second)")
    ax.set_ylabel("latency (ms, log scale)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, ncol=2)
    save_chart(fig, ax, f"{title}: latency against load", os.path.join(out, "latency.png"))

    pts = [r for r in rows if r["capacity"]]
    n = [r["replicas"] for r in pts]
    cap = [r["capacity"] for r in pts]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    if pts:
        gap = [(r["broken_at"] - r["capacity"]) if r["broken_at"] else 0 for r in pts]
        ax.errorbar(n, cap, yerr=[[0] * len(gap), gap], fmt="o-", color="tab:blue", capsize=4,
                    label="capacity (bar: up to the rate that broke)")
    replicas_axis(ax, n, cap, "capacity (offered iterations/s)")
    for r in pts:
        ax.annotate(f"{'≥ ' if r['status'] == 'capped' else ''}{r['capacity']:,.4g}"
                    + (f"\neff. {r['efficiency']:.2f}" if r["efficiency"] is not None else ""),
                    (r["replicas"], r["capacity"]), textcoords="offset points", xytext=(6, -18), fontsize=7)
    ax.legend(fontsize=8, loc="upper left")
    save_chart(fig, ax, f"{title}: capacity", os.path.join(out, "capacity.png"))


def main():
    a = arguments(__doc__, "Capacity search")
    steps = read_steps(os.path.join(a.out, "steps.jsonl"))
    if not steps:
        sys.exit("capacity_report: steps.jsonl has no steps")
    with open(os.path.join(a.out, "experiment.json"), encoding="utf-8") as f:
        meta = json.load(f)
    commands = {}
    for n in {int(s["replicas"]) for s in steps}:
        path = os.path.join(a.out, "runs", str(n), "command.txt")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                commands[n] = f.read().strip()
    for s in steps:
        s["busiest"], s["busiest_cores"] = busiest(s, meta)
        s["other_load_cores"] = other_load(s)
    write_csv([{**s, "held": "yes" if s["held"] else "no"} for s in steps], STEP_COLUMNS, os.path.join(a.out, "steps.csv"))
    rows = per_count(steps, commands)
    write_csv(rows, CAPACITY_COLUMNS, os.path.join(a.out, "capacity.csv"))
    write_markdown(rows, meta, os.path.join(a.out, "capacity.md"), a.title)
    if not a.no_chart:
        write_charts(steps, rows, meta, a.out, a.title)


if __name__ == "__main__":
    main()
