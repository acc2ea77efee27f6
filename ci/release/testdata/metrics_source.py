"""A Prometheus scrape target for ci/tests/release.sh: the services' HTTP histogram as the contract names it
(newsfeed_http_server_requests_seconds, labels service/route/method/status, the contract's buckets), growing
with time like a service under load. The four services serve API routes; the service "probe-only" serves only
/health/ready and /metrics, which the recording rules leave out. Usage: metrics_source.py PORT_FILE
(listens on a free 127.0.0.1 port and writes it to PORT_FILE)."""
import http.server
import sys
import time

BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
SERIES = [  # service, route, method, requests per second, share of requests per bucket upper bound
    ("social-graph", "/participant/:id", "GET", 20),
    ("outbound", "/participant/:id/outbound", "POST", 10),
    ("inbound", "/participant/:id/inbound", "GET", 15),
    ("search", "/outbound", "GET", 5),
    ("probe-only", "/health/ready", "GET", 1),
    ("probe-only", "/metrics", "GET", 1),
]
SHARES = [0.05, 0.2, 0.4, 0.6, 0.8, 0.9, 0.97, 0.99, 1, 1, 1, 1, 1]  # cumulative: p95 falls in (0.05, 0.1]
START = time.time()


def exposition():
    elapsed = time.time() - START
    out = ["# TYPE newsfeed_http_server_requests_seconds histogram"]
    for service, route, method, rps in SERIES:
        count = int(elapsed * rps)
        labels = f'service="{service}",route="{route}",method="{method}",status="200"'
        for le, share in zip(BUCKETS, SHARES):
            out.append(f'newsfeed_http_server_requests_seconds_bucket{{{labels},le="{le}"}} {int(count * share)}')
        out.append(f'newsfeed_http_server_requests_seconds_bucket{{{labels},le="+Inf"}} {count}')
        out.append(f"newsfeed_http_server_requests_seconds_count{{{labels}}} {count}")
        out.append(f"newsfeed_http_server_requests_seconds_sum{{{labels}}} {count * 0.02:.3f}")
    return ("\n".join(out) + "\n").encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = exposition()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()
