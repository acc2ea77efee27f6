#!/usr/bin/env python3
"""Prints the slowest recent traces a service took part in, from Jaeger's query API: one span per line, indented
under its parent, with its service, operation, duration and the attributes that say what it did.

Usage: show_traces.py --url http://127.0.0.1:16686 [--service outbound] [--operation OP] [--limit 3] [--lookback 1h]
"""
import argparse
import json
import sys
import urllib.parse
import urllib.request

# the attributes worth a line's room: what was called, how much was written
SHOWN = ("http.route", "url.full", "db.system", "db.query.text", "messaging.destination.name",
         "messaging.batch.message_count", "newsfeed.fanout.rows", "newsfeed.fanout.requests", "error")


def fetch(url, service, operation, lookback, limit):
    params = {"service": service, "lookback": lookback, "limit": limit}
    if operation:
        params["operation"] = operation
    query = urllib.parse.urlencode(params)
    with urllib.request.urlopen(f"{url}/api/traces?{query}", timeout=10) as r:
        return json.load(r).get("data") or []


def tree_lines(trace):
    services = {pid: p["serviceName"] for pid, p in trace["processes"].items()}
    spans = {s["spanID"]: s for s in trace["spans"]}
    children = {}
    roots = []
    for s in trace["spans"]:
        parent = next((r["spanID"] for r in s.get("references", []) if r["refType"] == "CHILD_OF"), None)
        if parent in spans:
            children.setdefault(parent, []).append(s)
        else:
            roots.append(s)
    lines = []

    def walk(span, depth):
        tags = {t["key"]: t["value"] for t in span.get("tags", [])}
        shown = " ".join(f"{k}={tags[k]}" for k in SHOWN if k in tags)
        lines.append(f"{'  ' * depth}{services[span['processID']]:<13} {span['operationName']:<34} "
                     f"{span['duration'] / 1000:>8.1f} ms  {shown}".rstrip())
        for child in sorted(children.get(span["spanID"], []), key=lambda c: c["startTime"]):
            walk(child, depth + 1)

    for root in sorted(roots, key=lambda r: r["startTime"]):
        walk(root, 0)
    return lines


def duration(trace):
    start = min(s["startTime"] for s in trace["spans"])
    return max(s["startTime"] + s["duration"] for s in trace["spans"]) - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--service", default="outbound")
    p.add_argument("--operation", default="", help="only traces holding this operation, e.g. 'POST /participant/:id/outbound'")
    p.add_argument("--limit", type=int, default=3)
    p.add_argument("--lookback", default="1h")
    a = p.parse_args()
    traces = fetch(a.url, a.service, a.operation, a.lookback, 200)
    what = a.service + (f" {a.operation}" if a.operation else "")
    if not traces:
        print(f"no trace of {what} in the last {a.lookback} (is TRACING_ENABLED=true given to the services?)")
        return 1
    print(f"{len(traces)} recent traces of {what}; the {min(a.limit, len(traces))} slowest:")
    for t in sorted(traces, key=duration, reverse=True)[:a.limit]:
        print(f"\ntrace {t['traceID']}: {duration(t) / 1000:.1f} ms, {len(t['spans'])} spans, "
              f"{len(set(p['serviceName'] for p in t['processes'].values()))} services")
        print("\n".join(tree_lines(t)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
