#!/usr/bin/env python3
"""Turns the rows of a scaling experiment (results.jsonl, one JSON object per replica count, written by
measure.py plus the runner's fields) into results.csv, results.md and throughput.png (throughput vs replicas
next to the ideal linear scaling, and the scaling efficiency).

Scaling efficiency = throughput(N) / (N * throughput(1)); when the runs lack N = 1, the smallest N is the
baseline: throughput(N) * N0 / (N * throughput(N0)).

Usage: report.py OUT_DIR [--title TEXT] [--no-chart]
"""
import json
import os
import sys

from reports import add_efficiency, arguments, replicas_axis, save_chart, write_csv

COLUMNS = ["replicas", "instances", "throughput_per_min", "efficiency", "service_rpm", "p50_ms", "p95_ms",
           "p99_ms", "error_ratio", "consumed_per_min", "async_p95_ms", "cpu_cores", "cpu_all_services",
           "host_cpu_busy", "api_rpm", "api_error_ratio", "api_p95_ms", "dropped_iterations", "k6_exit",
           "throughput_kind", "service", "testid", "t0", "t1", "duration_s"]

# (header, column, format) of the Markdown table: what a reader compares across replica counts
MARKDOWN = [("replicas", "replicas", "{}"), ("instances seen", "instances", "{}"),
            ("throughput/min", "throughput_per_min", "{:,.0f}"), ("efficiency", "efficiency", "{:.2f}"),
            ("p50 ms", "p50_ms", "{:.1f}"), ("p95 ms", "p95_ms", "{:.1f}"), ("p99 ms", "p99_ms", "{:.1f}"),
            ("5xx ratio", "error_ratio", "{:.4f}"), ("CPU cores (service)", "cpu_cores", "{:.2f}"),
            ("CPU cores (all services)", "cpu_all_services", "{:.2f}"), ("host CPU busy", "host_cpu_busy", "{:.2f}"),
            ("k6 API req/min", "api_rpm", "{:,.0f}"), ("k6 p95 ms", "api_p95_ms", "{:.1f}"),
            ("k6 failed", "api_error_ratio", "{:.4f}"), ("dropped iterations", "dropped_iterations", "{}"),
            ("k6 exit", "k6_exit", "{}")]


def load(path):
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return sorted(rows, key=lambda r: int(r["replicas"]))


def cell(value, fmt):
    if value is None or value == "":
        return "–"
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


def write_markdown(rows, path, title):
    kind = rows[0].get("throughput_kind", "http") if rows else "http"
    what = {"events": "events consumed by the Kafka group", "api": "requests k6 made to the whole API"}.get(
        kind, "API requests served by the service")
    lines = [f"# {title}", "",
             f"Throughput = {what} per minute, measured over each run's load window; efficiency = "
             "throughput(N) / (N × throughput(1)). Latency percentiles are the service's own histograms "
             "(server side); k6 columns are the client's view of the whole API.", "",
             "| " + " | ".join(h for h, _, _ in MARKDOWN) + " |",
             "|" + "|".join("---:" for _ in MARKDOWN) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(cell(r.get(c), f) for _, c, f in MARKDOWN) + " |")
    lines.append("")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def write_chart(rows, path, title):
    import matplotlib  # imported here: the table needs no plotting library
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = [(int(r["replicas"]), r["throughput_per_min"], r.get("efficiency")) for r in rows
           if r.get("throughput_per_min") is not None]
    if not pts:
        raise SystemExit("report: no row has a throughput, no chart")
    n = [p[0] for p in pts]
    t = [p[1] for p in pts]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    ax.plot(n, t, "o-", color="tab:blue", label="measured throughput")
    replicas_axis(ax, n, t, "throughput per minute")
    ax2 = ax.twinx()
    ax2.plot(n, [p[2] if p[2] is not None else float("nan") for p in pts], "s:", color="tab:orange",
             label="scaling efficiency")
    ax2.set_ylabel("efficiency")
    ax2.set_ylim(0, 1.2)
    handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    ax.legend(handles, [h.get_label() for h in handles], loc="lower right", fontsize=8)
    save_chart(fig, ax, title, path)


def main():
    a = arguments(__doc__, "Scaling experiment")
    rows = load(os.path.join(a.out, "results.jsonl"))
    if not rows:
        sys.exit("report: results.jsonl has no rows")
    add_efficiency(rows, "throughput_per_min")
    write_csv(rows, COLUMNS, os.path.join(a.out, "results.csv"))
    write_markdown(rows, os.path.join(a.out, "results.md"), a.title)
    if not a.no_chart:
        write_chart(rows, os.path.join(a.out, "throughput.png"), a.title)


if __name__ == "__main__":
    main()
