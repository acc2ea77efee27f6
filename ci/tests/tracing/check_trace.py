"""One post followed through Jaeger: a poster with three friends posts through outbound, and the trace Jaeger
holds for that request must show the whole path with the right parent links.

Usage: check_trace.py post | unsampled | probes   (environment: SOCIAL_GRAPH_URL, OUTBOUND_URL, JAEGER_URL)
  post       the traces of two posts, each: outbound's server span as root; its Cassandra write, its participant check
             (social-graph's server span and its store calls under outbound's client span) and its Kafka send
             under it; inbound's fan-out and search's index as consumers of that send; the friends lookup
             (inbound client -> social-graph server -> its stores), one Cassandra span for the fan-out's rows
             with the friend count, the Solr update under the index span
  unsampled  a post while outbound samples nothing (TRACING_SAMPLE_RATIO=0): no trace of it, anywhere, after 8 s
  probes     /health/ready, /health/live and /metrics requests start no trace
Prints `ok - ...` / `FAIL - ...` lines; exit 1 on any FAIL.
"""
import json
import os
import sys
import time
import urllib.parse
import urllib.request

FAILED = 0
FRIENDS = 3


PREFIX = ""


def check(ok, what, detail=""):
    global FAILED
    print(("ok - " if ok else "FAIL - ") + PREFIX + what + ("" if ok or not detail else f": {detail}"))
    if not ok:
        FAILED += 1
    return ok


def call(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=15) as r:
        raw = r.read()
        return r.status, (json.loads(raw) if raw and r.headers.get_content_type() == "application/json" else raw)


def traces(service, tags, lookback="10m", operation=None):
    params = {"service": service, "tags": json.dumps(tags), "lookback": lookback, "limit": 20}
    if operation:
        params["operation"] = operation
    q = urllib.parse.urlencode(params)
    with urllib.request.urlopen(f"{os.environ['JAEGER_URL']}/api/traces?{q}", timeout=10) as r:
        return json.load(r).get("data") or []


def poster_with_friends():
    sg = os.environ["SOCIAL_GRAPH_URL"]
    _, poster = call("POST", f"{sg}/participant", {"name": "tracer"})
    for i in range(FRIENDS):
        _, friend = call("POST", f"{sg}/participant", {"name": f"follower{i}"})
        call("POST", f"{sg}/participant/{poster['id']}/friends",
             {"from": f"/participant/{poster['id']}", "to": f"/participant/{friend['id']}"})
    return poster["id"]


def post(pid):
    status, _ = call("POST", f"{os.environ['OUTBOUND_URL']}/participant/{pid}/outbound",
                     {"from": f"/participant/{pid}", "subject": "traced", "story": "followed from the API to the index"})
    return status


class Trace:
    def __init__(self, data):
        self.id = data["traceID"]
        services = {pid: p["serviceName"] for pid, p in data["processes"].items()}
        self.spans = {}
        for s in data["spans"]:
            s["service"] = services[s["processID"]]
            s["tags"] = {t["key"]: t["value"] for t in s.get("tags", [])}
            s["parent"] = next((r["spanID"] for r in s.get("references", []) if r["refType"] == "CHILD_OF"), None)
            self.spans[s["spanID"]] = s

    def find(self, service, name=None, kind=None, parent=None, **tags):
        for s in self.spans.values():
            if s["service"] != service or (name and s["operationName"] != name):
                continue
            if kind and s["tags"].get("span.kind") != kind:
                continue
            if parent is not None and s["parent"] != parent["spanID"]:
                continue
            if all(s["tags"].get(k) == v for k, v in tags.items()):
                return s
        return None

    def services(self):
        return {s["service"] for s in self.spans.values()}


def complete(t):
    """Every span the checks look for has reached Jaeger (the services export in batches, each on its own)."""
    return {"outbound", "inbound", "social-graph", "search"} <= t.services() and \
        t.find("inbound", "cassandra insert inbound") and t.find("search", "index") and \
        t.find("search", kind="client") and t.find("social-graph", "GET /participant/:id/friends") and \
        t.find("outbound", "kafka_send")


def wait_for_trace(pid, deadline_s=45):
    path = f"/participant/{pid}/outbound"
    end = time.time() + deadline_s
    while True:
        found = [Trace(d) for d in traces("outbound", {"url.path": path})]
        done = [t for t in found if complete(t)]
        if done or time.time() > end:
            return (done or found or [None])[0]
        time.sleep(1)


def check_posts():
    """Two posts: the second shows that no request's work runs in the context (and the trace) of an earlier one."""
    global PREFIX
    for which in ("first post: ", "second post: "):
        PREFIX = which
        check_post()
    PREFIX = ""


def check_post():
    pid = poster_with_friends()
    check(post(pid) == 200, "a post with tracing on is accepted")
    t = wait_for_trace(pid)
    if not check(t is not None, "Jaeger holds the post's trace (found by outbound's url.path)"):
        return
    check({"outbound", "inbound", "social-graph", "search"} <= t.services(),
          "one trace holds spans of outbound, inbound, social-graph and search", sorted(t.services()))
    roots = [s for s in t.spans.values() if s["parent"] is None]
    root = t.find("outbound", "POST /participant/:id/outbound", kind="server")
    check(root is not None and roots == [root], "its only root is outbound's server span, named by its route",
          [(s["service"], s["operationName"]) for s in roots])
    if root is None:
        return
    check(root["tags"].get("http.route") == "/participant/:id/outbound", "the root carries http.route")
    check(t.find("outbound", parent=root, kind="client", **{"db.system": "cassandra"}) is not None,
          "outbound's Cassandra write is a child of the request")
    check_client = t.find("outbound", parent=root, kind="client", **{"url.full": f"{os.environ['SOCIAL_GRAPH_URL']}/participant/{pid}"})
    sg_check = check_client and t.find("social-graph", "GET /participant/:id", kind="server", parent=check_client)
    check(bool(sg_check), "outbound's participant check reaches social-graph's server span in the same trace")
    send = t.find("outbound", "kafka_send", kind="producer", parent=root)
    if not check(send is not None, "the Kafka send is a producer span under the request"):
        return
    check(send["tags"].get("messaging.destination.name") == "outbound-posted", "the send names its topic",
          send["tags"])
    fanout = t.find("inbound", "fan-out", kind="consumer", parent=send)
    index = t.find("search", "index", kind="consumer", parent=send)
    check(fanout is not None, "inbound's fan-out is a consumer span whose parent is the send (context in the headers)")
    check(index is not None, "search's index is a consumer span whose parent is the send")
    if fanout:
        lookup = t.find("inbound", kind="client", parent=fanout, **{"url.full":
                        f"{os.environ['SOCIAL_GRAPH_URL']}/participant/{pid}/friends?limit=1000"})
        friends = lookup and t.find("social-graph", "GET /participant/:id/friends", kind="server", parent=lookup)
        check(bool(friends), "the friends lookup: inbound's client span -> social-graph's server span",
              [(s["service"], s["operationName"], s["tags"].get("url.full"), s["parent"] == fanout["spanID"])
               for s in t.spans.values() if s["service"] == "inbound" or "friends" in s["operationName"]])
        if friends:
            stores = {t.spans[c]["tags"].get("db.system") for c in t.spans if t.spans[c]["parent"] == friends["spanID"]}
            check(bool(stores & {"postgresql", "redis"}), "social-graph's PostgreSQL/Redis calls are its children",
                  stores)
        rows = t.find("inbound", "cassandra insert inbound", parent=fanout)
        check(rows is not None and rows["tags"].get("newsfeed.fanout.rows") == FRIENDS
              and rows["tags"].get("db.system") == "cassandra",
              f"the fan-out's rows are one Cassandra span with newsfeed.fanout.rows={FRIENDS}",
              rows and rows["tags"])
        inbound_cassandra = [s for s in t.spans.values()
                             if s["service"] == "inbound" and s["tags"].get("db.system") == "cassandra"]
        check(len(inbound_cassandra) == 1, "no per-request Cassandra spans beside it",
              [s["operationName"] for s in inbound_cassandra])
    if index:
        solr = t.find("search", kind="client", parent=index)
        check(solr is not None and "/update" in solr["tags"].get("url.full", ""),
              "search's Solr update is a child of its index span", solr and solr["tags"])


def check_unsampled():
    pid = poster_with_friends()
    check(post(pid) == 200, "a post while outbound samples nothing is accepted")
    time.sleep(8)
    found = traces("outbound", {"url.path": f"/participant/{pid}/outbound"})
    check(not found, "no trace of it", [d["traceID"] for d in found])
    # its consumers follow the producer's decision: no span of any service names this poster's friends lookup
    lookups = traces("social-graph", {"url.path": f"/participant/{pid}/friends"},
                     operation="GET /participant/:id/friends")
    check(not lookups, "inbound's friends lookup of it is not traced either", [d["traceID"] for d in lookups])


def check_probes():
    for base_var in ("SOCIAL_GRAPH_URL", "OUTBOUND_URL"):
        for path in ("/health/ready", "/health/live", "/metrics"):
            call("GET", os.environ[base_var] + path)
    time.sleep(7)
    for service in ("social-graph", "outbound"):
        for path in ("/health/ready", "/health/live", "/metrics"):
            found = traces(service, {"url.path": path})
            check(not found, f"{service}: {path} starts no trace", len(found))


def main():
    {"post": check_posts, "unsampled": check_unsampled, "probes": check_probes}[sys.argv[1]]()
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
