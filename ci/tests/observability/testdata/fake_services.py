"""Stand-ins for the four services' /metrics, for the report test of ci/tests/observability.sh.

Serves, on 127.0.0.1:18081..18084 + OFFSET (social-graph, outbound, inbound, search), the series of
docs/contracts.md in Micrometer's text format (with the common `service` label), whose counters grow at known
rates from the moment this starts, so the per-minute report must show known numbers. Every histogram puts
its observations, in a fixed cycle, into known buckets, so its quantiles are known too (see EXPECTED).
Any other path answers 200 "pong" (a target for k6).
Usage: fake_services.py OFFSET      (runs until killed; prints "ready" once all ports listen)
"""
import http.server
import math
import sys
import threading
import time

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
# 40% in (5ms, 10ms], 50% in (25ms, 50ms], 10% in (100ms, 250ms]:
#   p50 = 25 + 25 * (0.5 - 0.4) / 0.5 = 30 ms, p95 = 100 + 150 * 0.05 / 0.1 = 175 ms, p99 = 235 ms
FAST = (0.0075,) * 4 + (0.0375,) * 5 + (0.175,)
# 60% in (0.25s, 0.5s], 40% in (0.5s, 1s]: p50 = 0.25 + 0.25 * 0.5 / 0.6 = 0.4583 s, p95 = 0.9375 s
SLOW = (0.375,) * 6 + (0.75,) * 4
SERVICES = ("social-graph", "outbound", "inbound", "search")

H, C, G = "histogram", "counter", "gauge"


# the kinds of series below, each with its name and label names once: (service, type, name, labels,
# per second | gauge value, pattern)
def http_series(service, method, route, status, per_second):
    return (service, H, "newsfeed_http_server_requests_seconds",
            {"route": route, "method": method, "status": status}, per_second, FAST)


def operation(service, entity, name, per_second):
    return (service, H, "newsfeed_operation_seconds", {"entity": entity, "operation": name, "outcome": "success"},
            per_second, FAST)


def store(service, name, op, per_second):
    return (service, H, "newsfeed_store_client_seconds", {"store": name, "operation": op, "outcome": "success"},
            per_second, FAST)


def delay(service, name, per_second):
    return (service, H, name, {}, per_second, SLOW)


def counter(service, name, labels, per_second):
    return (service, C, name, labels, per_second, None)


def lag(service, group, partition, records):
    return (service, G, "newsfeed_kafka_consumer_lag_records",
            {"group": group, "topic": "outbound-posted", "partition": partition}, records, None)


SERIES = (
    http_series("outbound", "POST", "/participant/:id/outbound", "200", 2.0),
    http_series("outbound", "POST", "/participant/:id/outbound", "503", 0.5),
    operation("outbound", "outbound", "post", 2.0),
    store("outbound", "cassandra", "execute", 2.0),
    store("outbound", "kafka", "produce", 2.0),
    counter("outbound", "newsfeed_events_total", {"event": "produced"}, 2.0),
    http_series("inbound", "GET", "/participant/:id/inbound", "200", 3.0),
    operation("inbound", "inbound", "load", 3.0),
    delay("inbound", "newsfeed_fanout_delay_seconds", 1.0),
    counter("inbound", "newsfeed_events_total", {"event": "consumed"}, 2.0),
    lag("inbound", "newsfeed-inbound", "0", 4),
    lag("inbound", "newsfeed-inbound", "1", 3),
    http_series("social-graph", "GET", "/participant/:id", "200", 1.0),
    store("social-graph", "postgresql", "query", 0.25),
    counter("social-graph", "newsfeed_cache_requests_total", {"cache": "participant", "result": "hit"}, 0.75),
    counter("social-graph", "newsfeed_cache_requests_total", {"cache": "participant", "result": "miss"}, 0.25),
    http_series("search", "GET", "/outbound", "200", 0.5),
    delay("search", "newsfeed_search_index_delay_seconds", 1.0),
    lag("search", "newsfeed-search", "0", 1),
)
# what the report must show (per minute, ms), checked by ci/tests/observability.sh
EXPECTED = {
    ("http", "outbound", "POST /participant/:id/outbound"): {"per_minute": 150, "errors_per_minute": 30,
                                                              "p50_ms": 30, "p95_ms": 175, "p99_ms": 235},
    ("http", "inbound", "GET /participant/:id/inbound"): {"per_minute": 180, "p50_ms": 30, "p95_ms": 175},
    ("operation", "outbound", "outbound post"): {"per_minute": 120, "p95_ms": 175},
    ("store", "outbound", "kafka produce"): {"per_minute": 120, "p99_ms": 235},
    ("fanout", "inbound", "fan-out"): {"per_minute": 60, "p50_ms": 458.3, "p95_ms": 937.5},
    ("search_index", "search", "index"): {"per_minute": 60, "p95_ms": 937.5},
    ("lag", "", "newsfeed-inbound/outbound-posted"): {"lag_records": 7},
}


def fmt_labels(service, labels, extra=None):
    items = {"service": service, **labels, **(extra or {})}
    return "{" + ",".join(f'{k}="{v}"' for k, v in items.items()) + "}"


def exposition(service, elapsed):
    lines = []
    for svc, kind, name, labels, rate, pattern in SERIES:
        if svc != service:
            continue
        if kind == G:
            lines += [f"# TYPE {name} gauge", f"{name}{fmt_labels(service, labels)} {rate}"]
            continue
        n = math.floor(rate * elapsed)
        if kind == C:
            lines += [f"# TYPE {name} counter", f"{name}{fmt_labels(service, labels)} {n}"]
            continue
        full, part = divmod(n, len(pattern))
        observed = pattern * full + pattern[:part]
        lines.append(f"# TYPE {name} histogram")
        for le in BUCKETS:
            count = full * sum(v <= le for v in pattern) + sum(v <= le for v in pattern[:part])
            lines.append(f"{name}_bucket{fmt_labels(service, labels, {'le': repr(float(le))})} {count}")
        lines.append(f"{name}_bucket{fmt_labels(service, labels, {'le': '+Inf'})} {n}")
        lines.append(f"{name}_count{fmt_labels(service, labels)} {n}")
        lines.append(f"{name}_sum{fmt_labels(service, labels)} {sum(observed)}")
    lines += ["# TYPE process_uptime_seconds gauge", f'process_uptime_seconds{{service="{service}"}} {elapsed:.3f}',
              "# TYPE process_cpu_usage gauge", f'process_cpu_usage{{service="{service}"}} 0.05',
              "# TYPE system_cpu_count gauge", f'system_cpu_count{{service="{service}"}} 2']
    return "\n".join(lines) + "\n"


def handler_for(service, started):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/metrics":
                body = exposition(service, time.monotonic() - started).encode()
                ctype = "text/plain; version=0.0.4; charset=utf-8"
            else:
                body, ctype = b"pong", "text/plain"
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    return Handler


def main():
    offset = int(sys.argv[1])
    started = time.monotonic()
    servers = []
    for i, service in enumerate(SERVICES):
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 18081 + i + offset), handler_for(service, started))
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
    print("ready", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
