#!/usr/bin/env python3
"""Measures one step of a scaling experiment from Prometheus: prints one JSON object (a row of the table).

The numbers use the recording rules' expressions (docs/contracts.md, charts/newsfeed/files/prometheus/
newsfeed.rules.yml), evaluated over the exact run window [t0, t1] instead of their rolling [1m]: counters
and histogram buckets are read at t0 and after t1 (`@` modifier) and subtracted, so a 20 s run is as exact as
a 10 minute one and series born inside the window (a new instance's first request) are not lost, which
increase() would do. k6's own series are cumulative per test id, so their last value is the run's total.

Usage: measure.py --prometheus URL --service S --testid T --t0 EPOCH --t1 EPOCH --duration SECONDS
                  [--k6-start EPOCH] [--pad SECONDS] [--throughput http|events|api] [--host-cpu FILE]
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../report"))
from prom_api import PrometheusError, query  # noqa: E402

API_ROUTES = 'route!~"/metrics|/health/.*"'
# k6 setup requests (participants, friendships) are not part of the measured load
K6_LOAD = 'group!="::setup",phase!="setup"'
ASYNC_DELAY = {"inbound": "newsfeed_fanout_delay_seconds", "search": "newsfeed_search_index_delay_seconds"}


def scalar(url, expr, at):
    """The single value of an aggregated query, None when it has no result or is NaN."""
    result = query(url, expr, at)
    if not result:
        return None
    value = result[0][1]
    return None if math.isnan(value) or math.isinf(value) else value


class Window:
    """Expressions of what happened between t0 and t1 (read at t1 + pad, after the last scrape)."""

    def __init__(self, t0, t1, pad):
        self.t0, self.t1, self.end = t0, t1, t1 + pad
        # only samples this recent count as "the value at": a series of an instance stopped earlier (or of a
        # previous run, left without staleness marker by a Prometheus restart) must not be read as current
        self.lookback = f"{max(1, int(pad))}s"

    def at(self, selector, t):
        # and the plain selector at t: a series whose target went away (a pod replaced by the rollout before the
        # run, an instance stopped) got staleness markers and is not current any more, however recent its sample
        return f"(last_over_time({selector}[{self.lookback}] @ {t:.3f}) and {selector} @ {t:.3f})"

    def delta(self, selector, by=""):
        """sum by (by) of counter at the end minus at t0; a series absent at t0 counts from zero."""
        agg = f"sum by ({by})" if by else "sum"
        at_end = f"{agg} ({self.at(selector, self.end)})"
        return f"({at_end} - ({agg} ({self.at(selector, self.t0)}) or 0 * {at_end}))"

    def quantile(self, q, bucket_selector):
        return f"histogram_quantile({q}, {self.delta(bucket_selector, 'le')})"


def ms(seconds):
    return None if seconds is None else round(seconds * 1000, 2)


def per_min(count, duration):
    return None if count is None else round(count * 60 / duration, 1)


def ratio(part, whole):
    if whole is None or whole <= 0:
        return None
    return round((part or 0) / whole, 5)


def host_cpu_busy(path, t0, t1):
    """CPU cores busy on the whole host between t0 and t1, from /proc/stat samples ("epoch cpu user nice ...")."""
    samples = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 9 and parts[1] == "cpu":
                ticks = [int(x) for x in parts[2:]]
                samples.append((float(parts[0]), sum(ticks), ticks[3] + ticks[4]))  # idle + iowait
    before = [s for s in samples if s[0] <= t0] or samples[:1]
    after = [s for s in samples if s[0] >= t1] or samples[-1:]
    if not before or not after or after[0][1] <= before[-1][1]:
        return None
    a, b = before[-1], after[0]
    return round((1 - (b[2] - a[2]) / (b[1] - a[1])) * (os.cpu_count() or 1), 2)


def window_cores(url, w, sel, by=None):
    """CPU cores used over the load window [t0, t1] (not the pad after it): the rate of the process CPU time counter
    over the window, else (fewer than two scrapes of it inside) the sampled process_cpu_usage gauge averaged over it.
    With `by`, {label value: cores}; else the sum, None when nothing is scraped."""
    span = max(1, int(round(w.t1 - w.t0)))
    agg = f"sum by ({by})" if by else "sum"
    result = query(url, f"{agg} (rate(process_cpu_time_ns_total{{{sel}}}[{span}s] @ {w.t1:.3f})) / 1e9", w.end)
    if not result:
        gauge = f"process_cpu_usage{{{sel}}} * system_cpu_count{{{sel}}}"
        result = query(url, f"avg_over_time(({agg} ({gauge}))[{span}s:1s] @ {w.t1:.3f})", w.end)
    values = {m.get(by, "?") if by else "": round(v, 3) for m, v in result if not math.isnan(v)}
    return values if by else values.get("")


def measure(a):
    url, svc, w = a.prometheus, a.service, Window(a.t0, a.t1, a.pad)
    at = w.end
    row = {"testid": a.testid, "service": svc, "t0": round(a.t0, 3), "t1": round(a.t1, 3),
           "duration_s": a.duration}

    # the service under test, from its own histograms (server side, API routes only)
    http = f'newsfeed_http_server_requests_seconds_count{{service="{svc}",{API_ROUTES}}}'
    http_5xx = f'newsfeed_http_server_requests_seconds_count{{service="{svc}",{API_ROUTES},status=~"5.."}}'
    bucket = f'newsfeed_http_server_requests_seconds_bucket{{service="{svc}",{API_ROUTES}}}'
    requests = scalar(url, w.delta(http), at)
    row["service_rpm"] = per_min(requests, a.duration)
    row["error_ratio"] = ratio(scalar(url, w.delta(http_5xx), at), requests)
    for name, q in (("p50_ms", 0.5), ("p95_ms", 0.95), ("p99_ms", 0.99)):
        row[name] = ms(scalar(url, w.quantile(q, bucket), at)) if requests else None

    # Kafka consumers (inbound fan-out, search indexing): events taken from the group, post -> done delay
    consumed = scalar(url, w.delta(f'newsfeed_events_total{{service="{svc}",event="consumed"}}'), at)
    row["consumed_per_min"] = per_min(consumed, a.duration)
    delay = ASYNC_DELAY.get(svc)
    for name, q in (("async_p50_ms", 0.5), ("async_p95_ms", 0.95)):
        row[name] = ms(scalar(url, w.quantile(q, f'{delay}_bucket{{service="{svc}"}}'), at)) \
            if delay and consumed else None
    # records the group is behind (partitions of the scraped instances): at the end of the window and its highest
    if delay:
        lag = f'newsfeed_kafka_consumer_lag_records{{service="{svc}"}}'
        end_lag = scalar(url, f"sum({w.at(lag, a.t1)})", at)
        max_lag = scalar(url, f"max_over_time(sum({lag})[{max(1, int(a.t1 - a.t0))}s:5s] @ {a.t1:.3f})", at)
        row["consumer_lag"] = None if end_lag is None else int(end_lag)
        row["consumer_lag_max"] = None if max_lag is None else int(max_lag)

    # CPU cores over the load window: process CPU time when Micrometer exports it, else the process_cpu_usage gauge
    row["cpu_cores"] = window_cores(url, w, f'service="{svc}"')
    row["cpu_all_services"] = window_cores(url, w, 'service!=""')
    row["cpu_by_service"] = window_cores(url, w, 'service!=""', "service")
    uptime = f'process_uptime_seconds{{service="{svc}"}}'
    instances = scalar(url, f"count({w.at(uptime, a.t1)})", at)
    row["instances"] = None if instances is None else int(instances)

    # the client's view (k6 remote write): whole API, every scenario of the run
    k6 = f'testid="{a.testid}",{K6_LOAD}'
    last = f"[{int(w.end - a.k6_start) + 1}s] @ {w.end:.3f}"
    api = scalar(url, f"sum(last_over_time(k6_http_reqs_total{{{k6}}}{last}))", at)
    api_failed = scalar(url, f'sum(last_over_time(k6_http_reqs_total{{{k6},expected_response="false"}}{last}))', at)
    row["api_rpm"] = per_min(api, a.duration)
    row["api_error_ratio"] = ratio(api_failed, api)
    row["api_p95_ms"] = ms(scalar(url, f"max(last_over_time(k6_http_req_duration_p95{{{k6}}}{last}))", at))
    dropped = scalar(url, f"sum(last_over_time(k6_dropped_iterations_total{{{k6}}}{last}))", at)
    row["dropped_iterations"] = int(dropped or 0)

    row["host_cpu_busy"] = host_cpu_busy(a.host_cpu, a.t0, a.t1) if a.host_cpu else None

    # what the efficiency is computed on: HTTP requests of the service, events of a Kafka consumer, or every
    # request k6 made (the whole API: right for a scenario that only calls the service under test)
    kind = a.throughput or ("events" if svc in ASYNC_DELAY else "http")
    row["throughput_kind"] = kind
    row["throughput_per_min"] = {"events": row["consumed_per_min"], "api": row["api_rpm"]}.get(kind, row["service_rpm"])
    return row


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--prometheus", required=True)
    p.add_argument("--service", required=True)
    p.add_argument("--testid", required=True)
    p.add_argument("--t0", type=float, required=True, help="start of the measured window (epoch seconds)")
    p.add_argument("--t1", type=float, required=True, help="end of the measured window (epoch seconds)")
    p.add_argument("--k6-start", type=float, help="when k6 started, setup included (default t0)")
    p.add_argument("--duration", type=float, required=True, help="seconds of load (the rate divisor)")
    p.add_argument("--pad", type=float, default=15, help="seconds after t1 until the last scrape is in")
    p.add_argument("--throughput", choices=("http", "events", "api"))
    p.add_argument("--host-cpu", help="/proc/stat samples of the run (host CPU busy, in cores): local mode, or a cluster node on this machine")
    a = p.parse_args()
    if a.k6_start is None:
        a.k6_start = a.t0
    try:
        print(json.dumps(measure(a)))
    except PrometheusError as e:
        print(f"measure: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
