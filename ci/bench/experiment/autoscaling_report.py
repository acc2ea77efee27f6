#!/usr/bin/env python3
"""Summary and chart of an autoscaling run (ci/bench/experiment/autoscaling.sh): reads OUT/run.json and
OUT/replicas.csv, writes OUT/summary.json, OUT/summary.md (the times the HPA scaled, the highest counts, every
change of the counts) and OUT/replicas.png (replicas and CPU over time, the k6 load shaded).

Times are seconds relative to the start of the measured load (k6's scenarios, after its setup). Scale-out and the
highest count are read from the load's start on, and the summary says whether the service was at its minimum then:
a count that k6's setup (or anything before the load) scaled out is not the load's."""
import csv
import json
import sys
from pathlib import Path


def number(value):
    return None if value in ("", None) else float(value)


def load(out):
    run = json.loads((out / "run.json").read_text())
    rows = []
    with open(out / "replicas.csv", newline="") as f:
        for r in csv.DictReader(f):
            rows.append({"t": int(r["time"]), "phase": r["phase"], "desired": number(r["desired"]),
                         "current": number(r["current"]), "ready": number(r["ready"]),
                         "cpu": number(r["cpu_percent"])})
    return run, rows


def first(rows, pred):
    return next((r for r in rows if pred(r)), None)


def summarise(run, rows):
    t0, t1, lo = run["load_start"], run["load_end"], run["min"]
    # the last sample before the load: the counts it met
    start_row = next((r for r in reversed(rows) if r["t"] < t0), None)
    at_min = start_row is not None and start_row["current"] == lo and start_row["ready"] == lo \
        and (start_row["desired"] or lo) <= lo
    loaded = [r for r in rows if r["t"] >= t0]
    out_row = first(loaded, lambda r: (r["desired"] or 0) > lo)
    top_ready = max((r["ready"] or 0 for r in loaded), default=0)
    top_row = first(loaded, lambda r: (r["ready"] or 0) == top_ready)
    back_row = first(rows, lambda r: r["t"] > t1 and r["current"] == lo and r["ready"] == lo)
    cpu = [r["cpu"] for r in rows if r["cpu"] is not None and t0 <= r["t"] <= t1]
    return {
        "service": run["service"], "min": lo, "max": run["max"], "rate": run["rate"], "duration": run["duration"],
        "load_seconds": t1 - t0, "samples": len(rows), "k6_exit": run["k6_exit"],
        "warmup": run.get("warmup", ""),
        "at_min_when_load_began": at_min,
        "ready_when_load_began": None if start_row is None else int(start_row["ready"] or 0),
        "highest_desired": int(max((r["desired"] or 0 for r in loaded), default=0)),
        "highest_ready": int(top_ready),
        "scaled_out": out_row is not None,
        "first_scale_out_s": None if out_row is None else out_row["t"] - t0,
        "highest_ready_at_s": None if top_row is None else top_row["t"] - t0,
        "back_to_min": bool(run["back_to_min"]) and back_row is not None,
        "back_to_min_after_load_s": None if back_row is None else back_row["t"] - t1,
        "cpu_percent_during_load": {"max": max(cpu), "mean": round(sum(cpu) / len(cpu), 1)} if cpu else None,
    }


def changes(rows, t0):
    """The samples where a count changed (and the first and last)."""
    kept, last = [], None
    for i, r in enumerate(rows):
        key = (r["desired"], r["current"], r["ready"])
        if key != last or i == len(rows) - 1:
            kept.append(r)
            last = key
    return [(r["t"] - t0, r) for r in kept]


def markdown(s, rows, t0):
    def sec(v):
        return "—" if v is None else f"{v:+d} s" if isinstance(v, int) else f"{v:+.0f} s"
    cpu = s["cpu_percent_during_load"]
    lines = [
        f"# {s['service']} under its HPA ({s['min']}..{s['max']} replicas), k6 at {s['rate']} it/s for {s['duration']}",
        "",
        "| | |", "|---|---|",
        f"| when the load began | " + ("—" if s["ready_when_load_began"] is None else
                                      f"{s['ready_when_load_began']} ready, "
                                      + ("at the minimum" if s["at_min_when_load_began"] else "not at the minimum"))
        + (f" (after a warm-up Job with {s['warmup']}, no HPA then) |" if s["warmup"] else " |"),
        f"| first scale-out (desired > {s['min']}) | {sec(s['first_scale_out_s'])} after the load began |",
        f"| highest ready replicas | {s['highest_ready']} (desired up to {s['highest_desired']}), at {sec(s['highest_ready_at_s'])} |",
        f"| back to {s['min']} replica(s) | " + (f"{sec(s['back_to_min_after_load_s'])} after the load ended |"
                                              if s["back_to_min"] else "not within the wait |"),
        f"| CPU (% of the request) during the load | " + (f"mean {cpu['mean']}, max {cpu['max']:.0f} |" if cpu else "— |"),
        f"| k6 exit | {s['k6_exit']} |",
        "",
        "| t (s from load start) | phase | desired | current | ready | CPU % |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for dt, r in changes(rows, t0):
        fmt = lambda v: "" if v is None else f"{v:.0f}"
        lines.append(f"| {dt:+d} | {r['phase']} | {fmt(r['desired'])} | {fmt(r['current'])} | {fmt(r['ready'])} | {fmt(r['cpu'])} |")
    return "\n".join(lines) + "\n"


def chart(out, s, rows, t0, t1):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    xs = [r["t"] - t0 for r in rows]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.axvspan(0, t1 - t0, color="tab:orange", alpha=0.12, label="k6 load")
    ax.step(xs, [r["desired"] for r in rows], where="post", label="HPA desired", color="tab:blue", linestyle="--")
    ax.step(xs, [r["ready"] for r in rows], where="post", label="ready replicas", color="tab:blue")
    ax.set_xlabel("seconds from the start of the load")
    ax.set_ylabel("replicas")
    ax.set_ylim(0, s["max"] + 0.5)
    ax2 = ax.twinx()
    ax2.plot(xs, [r["cpu"] for r in rows], color="tab:red", alpha=0.6, label="CPU % of request (HPA)")
    ax2.set_ylabel("CPU % of the request")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper right", fontsize=8)
    ax.set_title(f"{s['service']} autoscaling: k6 at {s['rate']} it/s for {s['duration']}")
    fig.tight_layout()
    fig.savefig(out / "replicas.png", dpi=110)


def main():
    out = Path(sys.argv[1])
    run, rows = load(out)
    if not rows:
        sys.exit(f"no samples in {out / 'replicas.csv'}")
    s = summarise(run, rows)
    (out / "summary.json").write_text(json.dumps(s, indent=2) + "\n")
    (out / "summary.md").write_text(markdown(s, rows, run["load_start"]))
    if "--no-chart" not in sys.argv:
        chart(out, s, rows, run["load_start"], run["load_end"])


if __name__ == "__main__":
    main()
