"""Latency exemplars end to end: the services, tracing every request, scraped by the local Prometheus with exemplar
storage (ci/local/prometheus.sh); a few posts by a participant with friends; then
  - /metrics without an Accept header is the classic text format without exemplars (what other scrapers read),
    and with Prometheus' OpenMetrics Accept header carries trace-id exemplars
  - every dashboard target marked "exemplar": true (its variables set to "all") returns exemplars from Prometheus'
    exemplar API, and Jaeger holds the traces they name: a point on the panel leads to a real trace
  - the recording rules still read what they read: a per-route p95 series of outbound is recorded, and no
    OpenMetrics `_created` series appeared

Usage: check_exemplars.py DASHBOARD.json...   (environment: PROMETHEUS_URL, JAEGER_URL, OUTBOUND_URL,
SOCIAL_GRAPH_URL). Prints `ok - ...` / `FAIL - ...` lines; exit 1 on any FAIL.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

from check_trace import post, poster_with_friends

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../observability"))
from check_panels_have_data import panel_queries  # noqa: E402  (the dashboards' queries, variables at "all")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../bench/report"))
from prom_api import api  # noqa: E402

OPENMETRICS = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
FAILED = 0


def check(ok, what, detail=""):
    global FAILED
    print(("ok - " if ok else "FAIL - ") + what + ("" if ok or not detail else f": {detail}"))
    if not ok:
        FAILED += 1
    return ok


def get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=15) as r:
        return r.headers.get("Content-Type", ""), r.read().decode()


def prometheus(path, **params):
    return api(os.environ["PROMETHEUS_URL"], path, timeout=15, **params)


def exemplar_targets(files):
    for f, title, target, expr in panel_queries(files):
        if target.get("exemplar"):
            yield f"{os.path.basename(f)} \"{title}\"", expr


def exemplars(expr, start):
    data = prometheus("query_exemplars", query=expr, start=start, end=time.time())
    return [e for series in data for e in series["exemplars"]]


def in_jaeger(trace_id):
    try:
        _, body = get(f"{os.environ['JAEGER_URL']}/api/traces/{trace_id}")
        return bool(json.loads(body).get("data"))
    except urllib.error.HTTPError:
        return False


def wait_for(predicate, seconds):
    deadline = time.time() + seconds
    while True:
        result = predicate()
        if result or time.time() > deadline:
            return result
        time.sleep(2)


def main(files):
    start = time.time() - 5
    pid = poster_with_friends()
    for _ in range(3):
        post(pid)

    outbound = os.environ["OUTBOUND_URL"]
    ctype, text = get(f"{outbound}/metrics")
    check(ctype.startswith("text/plain") and "version=0.0.4" in ctype and "trace_id=" not in text,
          "/metrics without Accept: classic text format, no exemplars", ctype)
    ctype, text = get(f"{outbound}/metrics", {"Accept": OPENMETRICS})
    check(ctype.startswith("application/openmetrics-text") and "# {" in text and "trace_id=" in text
          and text.rstrip().endswith("# EOF"), "/metrics asked for OpenMetrics: exemplars with trace ids", ctype)

    targets = list(exemplar_targets(files))
    check(len(targets) >= 5, f"the dashboards have exemplar targets ({len(targets)})")
    for where, expr in targets:
        found = wait_for(lambda: exemplars(expr, start), 60)
        if not check(bool(found), f"{where}: Prometheus returns exemplars for its exemplar query", expr):
            continue
        ids = sorted({e["labels"].get("trace_id", "") for e in found})
        check(all(len(i) == 32 for i in ids), f"{where}: every exemplar names a trace id", str(ids[:3]))
        # the newest exemplars' traces may still be in the services' export batch: give them the batch delay
        known = wait_for(lambda: [i for i in ids[:3] if in_jaeger(i)], 20)
        check(len(known) == min(3, len(ids)), f"{where}: Jaeger holds the traces its exemplars name",
              f"{len(known)} of {ids[:3]}")

    recorded = wait_for(lambda: prometheus(
        "query", query='service_route_method:newsfeed_http_server_requests_seconds:histogram_quantile'
        '{service="outbound", route="/participant/:id/outbound", quantile="0.95"}')["result"], 75)
    check(bool(recorded), "the recording rules still record the per-route p95 of posts from the OpenMetrics scrape")
    created = prometheus("series", **{"match[]": '{__name__=~".+_created"}', "start": start})
    check(not created, "no `_created` series from the OpenMetrics scrape", str(created[:3]))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
