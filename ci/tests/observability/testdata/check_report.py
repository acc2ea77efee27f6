"""Checks a per-minute report made from the fake services (fake_services.py) and the k6 probe (k6-probe.js).

Usage: check_report.py csv REPORT_DIR FROM_UNIX K6_PER_MINUTE   every expected row of fake_services.EXPECTED
                                                                (and the k6 probe) in each full minute >= FROM
       check_report.py png REPORT_DIR                           every *.png is a real PNG image, throughput too
Prints what differs; exit status 1 on any difference.
"""
import csv
import glob
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_services import EXPECTED  # noqa: E402

TOLERANCE = 0.10  # relative: scrapes every 5s, integer counters, quantiles interpolated within a bucket


def check_csv(report, since, k6_per_minute):
    with open(os.path.join(report, "per-minute.csv")) as f:
        rows = [r for r in csv.DictReader(f) if int(r["unix"]) >= since]
    problems = []
    minutes = sorted({int(r["unix"]) for r in rows})
    if not minutes:
        return [f"no row at or after {since} in per-minute.csv"]
    expected = dict(EXPECTED)
    expected[("k6", "k6", "probe GET /ping")] = {"per_minute": k6_per_minute, "errors_per_minute": 0}
    for minute in minutes:
        for (kind, service, operation), values in expected.items():
            match = [r for r in rows if int(r["unix"]) == minute and r["kind"] == kind
                     and r["service"] == service and r["operation"] == operation]
            if len(match) != 1:
                problems.append(f"{minute}: {len(match)} rows for {kind}/{service}/{operation}")
                continue
            for column, want in values.items():
                got = match[0][column]
                if got == "":
                    problems.append(f"{minute} {kind}/{service}/{operation}: {column} is empty, want {want}")
                elif abs(float(got) - want) > max(TOLERANCE * want, 0.5):
                    problems.append(f"{minute} {kind}/{service}/{operation}: {column} = {got}, want {want} +-10%")
    print(f"checked {len(minutes)} minute(s) x {len(expected)} operations")
    return problems


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def check_png(report):
    problems = []
    pngs = sorted(glob.glob(os.path.join(report, "*.png")))
    names = [os.path.basename(p) for p in pngs]
    for want in ("throughput.png", "latency-http.png", "latency-operations.png", "latency-stores.png",
                 "fanout.png", "k6.png"):
        if want not in names:
            problems.append(f"no {want}")
    for p in pngs:
        size = png_size(p)
        if not size or min(size) < 200:
            problems.append(f"{p}: not a PNG image of a chart (size {size})")
        elif os.path.getsize(p) < 10000:
            problems.append(f"{p}: only {os.path.getsize(p)} bytes, an empty chart?")
    print(f"checked {len(pngs)} PNG file(s): {', '.join(names)}")
    return problems


def main():
    if sys.argv[1] == "csv":
        problems = check_csv(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    else:
        problems = check_png(sys.argv[2])
    for p in problems:
        print(f"  {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
