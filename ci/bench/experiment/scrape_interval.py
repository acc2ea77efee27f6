#!/usr/bin/env python3
"""Prints how often Prometheus scrapes a release: the longest scrape interval, in whole seconds, of the active
targets labelled with the namespace (a ServiceMonitor's or PodMonitor's targets carry it). The runners wait that
long, plus a margin, before they read a counter that must include what just happened: a fixed wait is either too
short for the Operator's default of 30 s or idle time on a Prometheus that scrapes every 5 s.

Usage: scrape_interval.py --prometheus URL --namespace NS [--default SECONDS]
Without a target in the namespace, or without an answer from Prometheus, it prints --default (30) and says why on
standard error.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../report"))
from prom_api import PrometheusError, api  # noqa: E402

UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}


def seconds(duration):
    """A Prometheus duration ("5s", "1m30s", "500ms") in seconds."""
    parts = re.findall(r"(\d+)(ms|s|m|h)", duration)
    if not parts or "".join(n + u for n, u in parts) != duration:
        raise ValueError(f"not a Prometheus duration: {duration!r}")
    return sum(int(n) * UNITS[u] for n, u in parts)


def longest_interval(targets, namespace):
    """The longest scrapeInterval (seconds) of the targets in the namespace, None when there is none."""
    found = [seconds(t["scrapeInterval"]) for t in targets
             if t.get("labels", {}).get("namespace") == namespace and t.get("scrapeInterval")]
    return max(found) if found else None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--prometheus", required=True)
    p.add_argument("--namespace", required=True)
    p.add_argument("--default", type=int, default=30)
    a = p.parse_args()
    try:
        found = longest_interval(api(a.prometheus, "targets", timeout=10, state="active")["activeTargets"],
                                 a.namespace)
    except (PrometheusError, KeyError, ValueError) as e:
        print(f"scrape interval unknown ({e}): {a.default} s assumed", file=sys.stderr)
        found = None
    else:
        if found is None:
            print(f"no active target in namespace {a.namespace}: {a.default} s assumed", file=sys.stderr)
    print(int(max(1, round(found))) if found is not None else a.default)


if __name__ == "__main__":
    main()
