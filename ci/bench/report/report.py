"""Per-minute report of a run from the recorded series of the local Prometheus.

Writes OUT/per-minute.csv (every operation, every minute), OUT/per-minute.md (the tables a person reads, with
the charts) and OUT/*.png (throughput and p50/p95/p99 per operation, fan-out, k6 client view).
Usage: report.py --url URL --start UNIX --end UNIX --out DIR [--testid ID]   (ci/local/prometheus.sh report)
"""
import argparse
import csv
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from per_minute import QUANTILES, SECTIONS, collect  # noqa: E402
from prom_api import PrometheusError  # noqa: E402

CSV_COLUMNS = ("minute_utc", "unix", "kind", "service", "operation", "per_minute", "error_ratio",
               "errors_per_minute", "p50_ms", "p95_ms", "p99_ms", "lag_records")


def utc(ts, fmt="%Y-%m-%d %H:%M"):
    return time.strftime(fmt, time.gmtime(ts))


def num(v, digits):
    return "" if v is None else f"{v:.{digits}f}"


def ms(v):
    """Milliseconds with 3 significant digits, at least 0.01 ms resolution."""
    if v is None:
        return ""
    m = v * 1000
    return f"{m:.2f}" if m < 10 else f"{m:.1f}" if m < 100 else f"{m:.0f}"


def write_csv(path, ts, sections, lag):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for kind_rows in sections.values():
            for r in kind_rows:
                for t in ts:
                    q = [r.quantiles.get(k, {}).get(t) for k in QUANTILES]
                    if t not in r.per_minute and all(v is None for v in q):
                        continue
                    w.writerow([utc(t), t, r.kind, r.service, r.operation, num(r.per_minute.get(t), 2),
                                num(r.error_ratio.get(t), 4), num(r.errors_per_minute(t), 2),
                                *(num(None if v is None else v * 1000, 3) for v in q), ""])
        for name, points in sorted(lag.items()):
            for t in ts:
                if t in points:
                    w.writerow([utc(t), t, "lag", "", name, "", "", "", "", "", "", num(points[t], 0)])


def md_section(out, title, rows, ts, note=""):
    rows = [r for r in rows if not r.infra and r.active()]
    out.append(f"\n## {title}\n")
    if note:
        out.append(f"_{note}._\n")
    if not rows:
        out.append("No data in this window.\n")
        return
    out.append("| minute (UTC) | service | operation | per min | p50 ms | p95 ms | p99 ms | errors/min |")
    out.append("|---|---|---|--:|--:|--:|--:|--:|")
    for t in ts:
        for r in rows:
            q = [r.quantiles.get(k, {}).get(t) for k in QUANTILES]
            if t not in r.per_minute and all(v is None for v in q):
                continue
            out.append(f"| {utc(t, '%H:%M')} | {r.service} | {r.operation} | {num(r.per_minute.get(t), 1)} | "
                       f"{' | '.join(ms(v) for v in q)} | {num(r.errors_per_minute(t), 1)} |")


def write_markdown(path, args, ts, sections, lag, charts):
    out = ["# Per-minute report", "",
           f"- window: {utc(args.start, '%Y-%m-%d %H:%M:%S')} to {utc(args.end, '%H:%M:%S')} UTC, "
           f"{len(ts)} minute(s); Prometheus {args.url}",
           f"- testid: {args.testid or '(all)'}",
           "- each row is the minute ending at the time shown: rate over that minute x 60 and "
           "histogram_quantile over that minute's rates (recording rules of "
           "charts/newsfeed/files/prometheus/newsfeed.rules.yml); /metrics and /health/* are in the CSV only",
           "- every minute and operation: per-minute.csv"]
    if charts:
        out.append("\n## Charts\n")
        out.extend(f"![{name}]({name})" for name in charts)
    for sec in SECTIONS:
        md_section(out, sec.title, sections.get(sec.kind, []), ts, sec.quantile_note)
    out.append("\n## Kafka consumer lag (records, end of minute)\n")
    if lag:
        names = sorted(lag)
        out.append("| minute (UTC) | " + " | ".join(names) + " |")
        out.append("|---|" + "--:|" * len(names))
        for t in ts:
            out.append(f"| {utc(t, '%H:%M')} | " + " | ".join(num(lag[n].get(t), 0) for n in names) + " |")
    else:
        out.append("No data in this window.")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", required=True)
    p.add_argument("--start", type=int, required=True)
    p.add_argument("--end", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--testid")
    args = p.parse_args()
    if args.end <= args.start:
        p.error(f"--end {args.end} is not after --start {args.start}")
    os.makedirs(args.out, exist_ok=True)
    try:
        ts, sections, lag = collect(args.url, args.start, args.end, args.testid)
    except PrometheusError as e:
        print(f"report: {e}", file=sys.stderr)
        return 1
    import charts  # matplotlib: only in the report's venv (ci/bench/report/venv.sh)
    names = charts.write_all(args.out, ts, sections, lag)
    write_csv(os.path.join(args.out, "per-minute.csv"), ts, sections, lag)
    write_markdown(os.path.join(args.out, "per-minute.md"), args, ts, sections, lag, names)
    print(f"report: {args.out}/per-minute.md, per-minute.csv, {', '.join(names)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
