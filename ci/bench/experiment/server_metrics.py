#!/usr/bin/env python3
"""The services' own view of a load window, from their /metrics (no Prometheus needed).

  server_metrics.py snapshot FILE URL...   save the metrics of every service URL (http://127.0.0.1:<port>)
  server_metrics.py fanouts FILE URL...     until stopped, append a JSON line to FILE whenever inbound's fan-out count
      changes: {"t": unix time, "count": fan-outs completed, "sum": their delays in seconds}, summed over the URLs
  server_metrics.py fanout-delays FILE     print {"posts": n, "ms": [...]}: each completed fan-out's delay as the
      service measured it (post accepted -> last friend's row acknowledged), from FILE's successive lines
  server_metrics.py settle BEFORE POSTS TIMEOUT_S URL...   wait until the fan-outs completed since the snapshot
      BEFORE number at least POSTS and no consumer group lags; print the seconds waited (exit 1 after TIMEOUT_S)
  server_metrics.py diff BEFORE AFTER      print one JSON object for the window between the two snapshots:
      {"<service> <METHOD> <route>": {"n": requests, "p50": ms, "p95": ms, "p99": ms}, ..., and the same for each
       status of a route that answered with more than one ("<service> <METHOD> <route> <status>"),
       "fanout_ms": mean post-to-fan-out delay of inbound, "lag": records the consumer groups are behind,
       "cache_hits": {"<cache>": share of lookups that hit, e.g. inbound's first pages},
       "shed": {"<service>": requests refused as overloaded (HTTP_MAX_IN_FLIGHT), only when some were}}

Quantiles are interpolated inside the histogram buckets the way PromQL's histogram_quantile does, from the
bucket counts' increase over the window (newsfeed_http_server_requests_seconds: the time from the request's
arrival at the service to its response, i.e. latency at the API without the load generator's own queueing).
"""
import json
import re
import sys
import time
import urllib.request

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
WANTED = ("newsfeed_http_server_requests_seconds_bucket", "newsfeed_fanout_delay_seconds_count",
          "newsfeed_fanout_delay_seconds_sum", "newsfeed_kafka_consumer_lag_records", "newsfeed_cache_requests_total",
          "newsfeed_http_server_shed_total")
SKIPPED_ROUTES = ("/health/live", "/health/ready", "/metrics")


def scrape(url):
    samples = []
    with urllib.request.urlopen(url.rstrip("/") + "/metrics", timeout=10) as resp:
        for line in resp.read().decode().splitlines():
            m = LINE.match(line)
            if m and m.group(1) in WANTED:
                samples.append([m.group(1), dict(LABEL.findall(m.group(3) or "")), float(m.group(4))])
    return samples


def scrape_all(urls):
    """The samples of every instance that answers: one that is down has no numbers, the others still count."""
    samples = []
    for url in urls:
        try:
            samples.extend(scrape(url))
        except OSError as e:
            print(f"server_metrics: {url}: {e}", file=sys.stderr)
    return samples


def snapshot(path, urls):
    samples = scrape_all(urls)
    with open(path, "w") as f:
        json.dump(samples, f)


def quantile(q, buckets):
    """buckets: [(upper bound, cumulative count)] sorted by bound, the last one +Inf."""
    total = buckets[-1][1]
    if total <= 0:
        return None
    rank = q * total
    lower_bound, lower_count = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if bound == float("inf"):
                return lower_bound          # as histogram_quantile: the highest finite bound
            return lower_bound + (bound - lower_bound) * (rank - lower_count) / max(count - lower_count, 1e-9)
        lower_bound, lower_count = bound, count
    return lower_bound


def fanout_totals(samples):
    """The fan-out timer's count and sum over every instance of a snapshot's samples."""
    count = total = 0.0
    for name, _, value in samples:
        if name == "newsfeed_fanout_delay_seconds_count":
            count += value
        elif name == "newsfeed_fanout_delay_seconds_sum":
            total += value
    return count, total


def consumer_lag(samples):
    """The records the consumer groups are behind, summed over every instance of a snapshot's samples."""
    return sum(value for name, _, value in samples if name == "newsfeed_kafka_consumer_lag_records")


def window(before_samples, after_samples):
    """What the services served between two snapshots: per route n and p50/p95/p99 ms (summed over status codes and
    instances), the mean fan-out delay, the consumer lag at the end, the caches' hit ratios and the refusals of the
    in-flight bound (a 503 of the route counts store outages too; the shed counter only the bound's refusals)."""
    before = {(n, json.dumps(l, sort_keys=True)): v for n, l, v in before_samples}
    result, by_status = {}, {}                       # route -> status -> le -> requests in the window
    lookups = {}                                     # cache -> {"hit": n, "miss": n}
    shed = {}                                        # service -> requests refused by its in-flight bound
    for name, labels, value in after_samples:
        delta = value - before.get((name, json.dumps(labels, sort_keys=True)), 0.0)
        if name == "newsfeed_http_server_requests_seconds_bucket":
            if labels.get("route") in SKIPPED_ROUTES:
                continue
            key = f'{labels.get("service")} {labels.get("method")} {labels.get("route")}'
            le = float(labels["le"].replace("+Inf", "inf"))
            statuses = by_status.setdefault(key, {}).setdefault(labels.get("status"), {})
            statuses[le] = statuses.get(le, 0.0) + delta
        elif name == "newsfeed_cache_requests_total":
            counts = lookups.setdefault(labels.get("cache"), {})
            counts[labels.get("result")] = counts.get(labels.get("result"), 0.0) + delta
        elif name == "newsfeed_http_server_shed_total":
            shed[labels.get("service")] = shed.get(labels.get("service"), 0.0) + delta
    # each route summed over its statuses; one that answered with more than one status also gets an entry per status
    # ("<route> 200", "<route> 503"): the latency of the accepted requests apart from the fast refusals of an
    # overloaded instance
    routes = {}
    for key, statuses in by_status.items():
        total = routes.setdefault(key, {})
        for by_bound in statuses.values():
            for le, n in by_bound.items():
                total[le] = total.get(le, 0.0) + n
        answered = {status: by_bound for status, by_bound in statuses.items() if max(by_bound.values()) > 0}
        if len(answered) > 1:
            routes.update({f"{key} {status}": by_bound for status, by_bound in answered.items()})
    for key, by_bound in sorted(routes.items()):
        buckets = sorted(by_bound.items())
        n = buckets[-1][1]
        if n <= 0:
            continue
        result[key] = {"n": int(n), **{f"p{int(q * 100)}": round(1000 * quantile(q, buckets), 2)
                                       for q in (0.5, 0.95, 0.99)}}
    (count_before, sum_before), (count_after, sum_after) = fanout_totals(before_samples), fanout_totals(after_samples)
    if count_after > count_before:
        result["fanout_ms"] = round(1000 * (sum_after - sum_before) / (count_after - count_before), 1)
    result["lag"] = int(consumer_lag(after_samples))
    hits = {cache: round(c.get("hit", 0.0) / (c.get("hit", 0.0) + c.get("miss", 0.0)), 3)
            for cache, c in sorted(lookups.items()) if c.get("hit", 0.0) + c.get("miss", 0.0) > 0}
    if hits:
        result["cache_hits"] = hits
    refused = {service: int(n) for service, n in sorted(shed.items()) if n > 0}
    if refused:
        result["shed"] = refused
    return result


def diff(before_path, after_path):
    print(json.dumps(window(json.load(open(before_path)), json.load(open(after_path))), separators=(",", ":")))


def fanouts(path, urls, interval=0.25):
    """Polls the fan-out timer; a line per change. Each fan-out's own delay is the difference of two lines' sums,
    exact whatever the polling interval as long as one interval holds at most one completion (posts one at a time)."""
    last = None
    with open(path, "a") as f:
        while True:
            count, total = fanout_totals(scrape_all(urls))
            if count != last:
                f.write(json.dumps({"t": round(time.time(), 3), "count": count, "sum": total}) + "\n")
                f.flush()
                last = count
            time.sleep(interval)


def settle(before_path, posts, timeout_s, urls, interval=1.0):
    """Waits for the fan-out of POSTS more posts and for every consumer to catch up. Both: a lag gauge is as of its
    consumer's last refresh, so one busy with a long batch can still show 0 for records published since."""
    started = time.time()
    done_before, _ = fanout_totals(json.load(open(before_path)))
    while True:
        samples = scrape_all(urls)
        done = fanout_totals(samples)[0] - done_before
        lag = consumer_lag(samples)
        if done >= posts and lag == 0:
            print(round(time.time() - started, 1))
            return
        if time.time() - started > timeout_s:
            sys.exit(f"server_metrics: {int(done)} of {posts} fan-outs done and a lag of {int(lag)} "
                     f"after {timeout_s} s")
        time.sleep(interval)


def fanout_delays(path):
    lines = [json.loads(line) for line in open(path) if line.strip()]
    delays = []
    for before, after in zip(lines, lines[1:]):
        n = after["count"] - before["count"]
        if n > 0:                        # two completions in one interval: their mean, once per fan-out
            delays.extend([round(1000 * (after["sum"] - before["sum"]) / n, 1)] * int(n))
    print(json.dumps({"posts": len(delays), "ms": delays}, separators=(",", ":")))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "snapshot":
        snapshot(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "fanouts":
        fanouts(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 6 and sys.argv[1] == "settle":
        settle(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5:])
    elif len(sys.argv) == 3 and sys.argv[1] == "fanout-delays":
        fanout_delays(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "diff":
        diff(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
