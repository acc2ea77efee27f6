#!/usr/bin/env python3
"""The panels of a dashboard show data from a real Prometheus: every query of every panel whose title matches
--title returns at least one series now (its variables set to "all", $__rate_interval to 1m), polled until
--wait seconds have passed (a rate needs two scrapes). Exemplar-only queries are left out: they draw no series.

Usage: check_panels_have_data.py --prometheus URL --title REGEX [--wait SECONDS] DASHBOARD.json...
Prints one `ok - ` / `FAIL - ` line per query (with the series count or the query); exit 1 on any FAIL, or when no
panel matches.
"""
import argparse
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../bench/report"))
from prom_api import api  # noqa: E402

VARIABLES = {"$__rate_interval": "1m", "${datasource}": ""}


def panel_queries(files, title=".*"):
    """(dashboard file, panel title, target, its expr with the variables at "all") of every target of every panel
    whose title matches; also used by ci/tests/tracing/check_exemplars.py."""
    for f in files:
        dashboard = json.load(open(f))
        names = [v["name"] for v in dashboard.get("templating", {}).get("list", []) if v.get("type") == "query"]
        for panel in dashboard["panels"]:
            if not re.search(title, panel.get("title", "")):
                continue
            for t in panel.get("targets", []):
                expr = t["expr"]
                for var, value in VARIABLES.items():
                    expr = expr.replace(var, value)
                for name in names:  # a query variable at "All" is its allValue, ".*" in these dashboards
                    expr = re.sub(r"\$\{?" + name + r"\b\}?", ".*", expr)
                yield f, panel["title"], t, expr


def queries(files, title):
    for _, panel_title, t, expr in panel_queries(files, title):
        if not (t.get("exemplar") and t.get("refId") == "EXEMPLARS"):
            yield f"{panel_title} {t['refId']}", expr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prometheus", required=True)
    ap.add_argument("--title", required=True)
    ap.add_argument("--wait", type=float, default=60)
    ap.add_argument("dashboards", nargs="+")
    args = ap.parse_args()
    todo = list(queries(args.dashboards, args.title))
    if not todo:
        print(f"FAIL - no panel title matches /{args.title}/")
        return 1
    deadline = time.time() + args.wait
    failed = 0
    for what, expr in todo:
        while True:
            found = api(args.prometheus, "query", timeout=10, query=expr)["result"]
            if found or time.time() > deadline:
                break
            time.sleep(2)
        if found:
            print(f"ok - panel {what}: {len(found)} series")
        else:
            print(f"FAIL - panel {what}: no data for {expr}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
