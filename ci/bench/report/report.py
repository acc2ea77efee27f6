"""Per-minute report of a run from the recorded series of the local Prometheus.

Writes OUT/per-minute.csv (every operation, every minute), OUT/per-minute.md (the tables a person reads, with
the charts), OUT/per-minute.html (the same in one self-contained file, charts inlined) and OUT/*.png (throughput
and p50/p95/p99 per operation, fan-out, k6 client view).
Usage: report.py --url URL --start UNIX --end UNIX --out DIR [--testid ID]   (ci/local/prometheus.sh report)
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import html_report  # noqa: E402
from per_minute import collect  # noqa: E402
from prom_api import PrometheusError  # noqa: E402
from tables import NO_DATA, TITLE, facts, num, quantiles_at, tables, utc  # noqa: E402

CSV_COLUMNS = ("minute_utc", "unix", "kind", "service", "operation", "per_minute", "error_ratio",
               "errors_per_minute", "p50_ms", "p95_ms", "p99_ms", "lag_records")


def write_csv(path, ts, sections, lag):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for kind_rows in sections.values():
            for r in kind_rows:
                for t in ts:
                    q = quantiles_at(r, t)
                    if q is None:
                        continue
                    w.writerow([utc(t), t, r.kind, r.service, r.operation, num(r.per_minute.get(t), 2),
                                num(r.error_ratio.get(t), 4), num(r.errors_per_minute(t), 2),
                                *(num(None if v is None else v * 1000, 3) for v in q), ""])
        for name, points in sorted(lag.items()):
            for t in ts:
                if t in points:
                    w.writerow([utc(t), t, "lag", "", name, "", "", "", "", "", "", num(points[t], 0)])


def write_markdown(path, header, chart_names, shown):
    out = [f"# {TITLE}", "", *(f"- {fact}" for fact in header)]
    if chart_names:
        out.append("\n## Charts\n")
        out.extend(f"![{name}]({name})" for name in chart_names)
    for t in shown:
        out.append(f"\n## {t.title}\n")
        if t.note:
            out.append(f"_{t.note}._\n")
        if not t.rows:
            out.append(NO_DATA)
            continue
        out.append("| " + " | ".join(t.columns) + " |")
        out.append("|" + "---|" * t.first_number + "--:|" * (len(t.columns) - t.first_number))
        out.extend("| " + " | ".join(row) + " |" for row in t.rows)
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
    header = facts(args.url, args.start, args.end, args.testid, ts)
    shown = tables(ts, sections, lag)
    write_markdown(os.path.join(args.out, "per-minute.md"), header, names, shown)
    html_report.write(os.path.join(args.out, "per-minute.html"), args.out, header, names, shown)
    print(f"report: {args.out}/per-minute.html, per-minute.md, per-minute.csv, {', '.join(names)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
