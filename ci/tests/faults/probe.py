"""Probes of the fault suite: what the services answer while a fault lasts, and how long they take to recover.

Usage:
  probe.py down FAULT GRAPH.json OUT_DIR       while FAULT is in effect (a store stopped: kafka | redis |
                                               cassandra | solr | postgresql; killed with -9: kafka-kill9 |
                                               cassandra-kill9 (not in the suite); unreachable, its packets
                                               dropped: kafka-answers-lost | kafka-blackhole |
                                               cassandra-answers-lost | cassandra-blackhole; its
                                               answers lost in a relay: postgresql-answers-lost; paused
                                               most of the time: cassandra-slow; filled past its memory limit:
                                               redis-full; an instance killed with -9: inbound-2 |
                                               outbound-1 | search-1 | social-graph-1, or with its requests
                                               waiting on a store: outbound-1-mid-post): prints `ok - ...` /
                                               `FAIL - ...` lines
  probe.py recover FAULT GRAPH.json OUT_DIR --since EPOCH [--timeout 120]
                                               after the store (or instance) was started again at EPOCH:
                                               waits until every instance is ready, a new post is acknowledged,
                                               fanned out to a friend and searchable; prints ok/FAIL lines
Environment: SOCIAL_GRAPH_URL, OUTBOUND_URL, INBOUND_URL, SEARCH_URL, and NEWSFEED_INSTANCES
("social-graph-1=http://127.0.0.1:P inbound-2=http://..." : every instance, for health probes).
Results are also appended to OUT_DIR/probes.jsonl and OUT_DIR/recovery.jsonl; marker posts (acknowledged
posts made here) to OUT_DIR/markers.jsonl so the final verification checks them like the ledger's.
"""
import argparse
import json
from datetime import datetime
import urllib.parse
import os
import sys
import time

from concurrent.futures import ThreadPoolExecutor

import api

POLL_SECONDS = 30      # how long a condition that must appear during an outage may take to appear
SAMPLES = 4            # a condition that must hold during an outage is sampled this often, 0.5 s apart



def when(occurred):
    """An API timestamp (ISO-8601 with Z, any number of fraction digits) as a datetime."""
    return datetime.fromisoformat(occurred.replace("Z", "+00:00"))


class Probe:
    def __init__(self, fault, graph, out_dir):
        self.fault, self.graph, self.out_dir = fault, graph, out_dir
        self.urls = api.Urls()
        self.instances = dict(pair.split("=", 1) for pair in os.environ.get("NEWSFEED_INSTANCES", "").split())
        self.failed = 0
        self.probe_posts = 0
        self.plan = []
        posters = graph["posters"]
        # a poster with friends, and two other participants whose feeds and friends are read
        self.poster = next(p for p in posters if graph["friends"][str(p)])
        self.friend = graph["friends"][str(self.poster)][0]
        self.readers = posters[:3]

    def record(self, name, ok, detail, **extra):
        self.failed += 0 if ok else 1
        print(f"{'ok' if ok else 'FAIL'} - {self.fault} {name}" + (f" ({detail})" if detail else ""), flush=True)
        with open(os.path.join(self.out_dir, "probes.jsonl"), "a") as f:
            f.write(json.dumps({"fault": self.fault, "check": name, "ok": ok, "detail": detail, **extra}) + "\n")

    # -- conditions: each returns (ok, detail). The checks of one fault are planned first, then run side by side
    # (so the whole set takes as long as its slowest check, not their sum) and reported in plan order.
    def eventually(self, name, cond, timeout=POLL_SECONDS):
        """cond must become true within timeout (a store's absence takes a moment to be noticed)."""
        def run():
            last = [None]

            def attempt():
                ok, detail = cond()
                last[0] = detail
                return ok
            ok, secs = api.wait_for(attempt, timeout)
            return bool(ok), f"after {secs:.1f}s" if ok else f"not within {timeout}s: {last[0]}", round(secs, 2)
        self.plan.append((name, run))

    def always(self, name, cond):
        """cond must hold on every one of a few samples."""
        def run():
            for i in range(SAMPLES):
                ok, detail = cond()
                if not ok:
                    return False, f"sample {i + 1}: {detail}", None
                time.sleep(0.5)
            return True, f"{SAMPLES} samples", None
        self.plan.append((name, run))

    def run_plan(self):
        with ThreadPoolExecutor(max(1, len(self.plan))) as pool:
            futures = [(name, pool.submit(run)) for name, run in self.plan]
            for name, f in futures:
                ok, detail, secs = f.result()
                self.record(name, ok, detail, seconds=secs)
        self.plan = []

    @staticmethod
    def status_is(method, url, status, body=None, json_error=False, timeout=15):
        def cond():
            r = api.request(method, url, body, timeout=timeout)
            if r.status != status:
                return False, f"{method} {url} -> {r.describe()}"
            if json_error and not r.is_json_error(status):
                return False, f"{method} {url} -> {status} without the JSON error body: {r.body[:200]!r}"
            return True, f"{method} {url} -> {r.status}"
        return cond

    def post_cond(self, status, json_error=False):
        """POST outbound must answer status; every post acknowledged here is kept for the final verification."""
        def cond():
            self.probe_posts += 1
            kw = f"nf{self.graph['run']}p{self.fault[:3]}{int(time.time() * 1000) % 10 ** 9:09d}"
            body = {"from": api.link(self.poster), "subject": f"fault probe {kw}",
                    "story": f"probe post during {self.fault}, keyword {kw}"}
            r = api.post(f"{self.urls.outbound}/participant/{self.poster}/outbound", body, timeout=15)
            if 200 <= r.status < 300:
                self.keep_marker(f"probe-{self.fault}-{self.probe_posts}", kw, body["subject"], r.status)
            if r.status != status:
                return False, f"POST outbound -> {r.describe()}"
            if json_error and not r.is_json_error(status):
                return False, f"POST outbound -> {status} without the JSON error body: {r.body[:200]!r}"
            return True, f"POST outbound -> {r.status}"
        return cond

    def keep_marker(self, seq, kw, subject, status):
        with open(os.path.join(self.out_dir, "markers.jsonl"), "a") as f:
            f.write(json.dumps({"seq": seq, "poster": self.poster, "keyword": kw, "subject": subject,
                                "status": status, "outcome": "acknowledged"}) + "\n")

    # -- the checks of one fault
    def live_all(self, skip=()):
        for inst, url in sorted(self.instances.items()):
            if inst not in skip:
                self.always(f"down: {inst} /health/live 200", self.status_is("GET", f"{url}/health/live", 200))

    def ready(self, inst, status):
        self.eventually(f"down: {inst} /health/ready {status}",
                        self.status_is("GET", f"{self.instances[inst]}/health/ready", status))

    def instances_of(self, service):
        return sorted(i for i in self.instances if i.rsplit("-", 1)[0] == service)

    def social_graph_reads(self):
        friends = self.graph["friends"]

        def cond():
            for pid in self.readers:
                r = api.get(f"{self.urls.social_graph}/participant/{pid}")
                if r.status != 200:
                    return False, f"GET /participant/{pid} -> {r.describe()}"
                rows = api.feed(f"{self.urls.social_graph}/participant/{pid}/friends")
                if rows is None:
                    return False, f"GET /participant/{pid}/friends did not answer 200"
                got = sorted(api.id_of(x["to"]) if api.id_of(x["from"]) == pid else api.id_of(x["from"]) for x in rows)
                if got != friends[str(pid)]:
                    return False, f"GET /participant/{pid}/friends -> {got}, expected {friends[str(pid)]}"
            return True, ""
        self.always("down: social-graph GET /participant/{id} and /friends 200 with the right friends", cond)

    def down(self):
        u, p = self.urls, self.poster
        read_outbound = f"{u.outbound}/participant/{p}/outbound?limit=5"
        read_inbound = f"{u.inbound}/participant/{self.friend}/inbound?limit=5"
        search = f"{u.search}/outbound?keywords=fault"
        # a store killed, or unreachable with its packets dropped, looks to its clients like a store stopped: they
        # time out instead of being refused, and answer the same way
        store = self.fault
        for suffix in ("-kill9", "-answers-lost", "-blackhole"):
            store = store.removesuffix(suffix)
        killed = self.fault.removesuffix("-mid-post")   # an instance killed while its requests wait on a store
        if killed in self.instances:
            self.instance_down(killed, read_outbound, read_inbound, search)
        elif store == "cassandra-slow":
            self.slow_store(read_outbound, read_inbound)
        elif store == "redis-full":
            self.full_cache()
        elif store == "kafka":
            self.live_all()
            self.eventually("down: POST outbound 503 JSON error",
                            self.post_cond(503, json_error=True))
            for inst in self.instances_of("outbound") + self.instances_of("inbound") + self.instances_of("search"):
                # the event path reports the broker; readiness stays: the HTTP API needs no Kafka
                self.eventually(f"down: {inst} /health/events 503",
                                self.status_is("GET", f"{self.instances[inst]}/health/events", 503))
                self.always(f"down: {inst} /health/ready still 200 (reads need no Kafka)",
                            self.status_is("GET", f"{self.instances[inst]}/health/ready", 200))
            self.always("down: GET outbound still 200 (Cassandra is up)", self.status_is("GET", read_outbound, 200))
            self.always("down: GET inbound still 200 (Cassandra is up)", self.status_is("GET", read_inbound, 200))
            self.always("down: search still 200 (Solr is up)", self.status_is("GET", search, 200))
            self.social_graph_reads()
        elif store == "redis":
            self.live_all()
            self.social_graph_reads()
            ready = api.get(f"{self.instances[self.instances_of('social-graph')[0]]}/health/ready")
            # whether a cache outage makes social-graph unready is its design choice: recorded, not judged
            print(f"# redis down: social-graph /health/ready answers {ready.describe()}", flush=True)
            for inst in self.instances_of("outbound") + self.instances_of("inbound") + self.instances_of("search"):
                self.always(f"down: {inst} /health/ready still 200 (needs no Redis)",
                            self.status_is("GET", f"{self.instances[inst]}/health/ready", 200))
        elif store == "cassandra":
            self.live_all()
            self.eventually("down: POST outbound 503 JSON error",
                            self.post_cond(503, json_error=True))
            self.eventually("down: GET outbound 503 JSON error", self.status_is("GET", read_outbound, 503, json_error=True))
            for inst in self.instances_of("inbound"):
                self.eventually(f"down: GET inbound on {inst} 503 JSON error",
                                self.status_is("GET", f"{self.instances[inst]}/participant/{self.friend}/inbound",
                                               503, json_error=True))
            for inst in self.instances_of("outbound") + self.instances_of("inbound"):
                self.ready(inst, 503)
            self.always("down: search still 200 (Solr is up)", self.status_is("GET", search, 200))
            self.social_graph_reads()
        elif store == "solr":
            self.live_all()
            self.eventually("down: search 503 JSON error", self.status_is("GET", search, 503, json_error=True))
            for inst in self.instances_of("search"):
                self.ready(inst, 503)
            self.eventually("down: POST outbound still 200 (posting needs no Solr)",
                            self.post_cond(200))
            self.always("down: GET inbound still 200", self.status_is("GET", read_inbound, 200))
        elif store == "postgresql":
            self.live_all()
            for inst in self.instances_of("social-graph"):
                self.ready(inst, 503)
            self.eventually("down: POST /participant 503 JSON error",
                            self.status_is("POST", f"{u.social_graph}/participant", 503,
                                           body={"name": "created while PostgreSQL is down"}, json_error=True))
            self.always("down: GET inbound still 200 (Cassandra is up)", self.status_is("GET", read_inbound, 200))
            self.always("down: search still 200 (Solr is up)", self.status_is("GET", search, 200))
        else:
            raise SystemExit(f"unknown fault {self.fault}")

    def slow_store(self, read_outbound, read_inbound):
        """Cassandra paused 0.3 s of every 0.5 s: slower, never failing (its clients wait up to 2 s)."""
        self.live_all()
        self.always("down: POST outbound still 200 (slow, not failing)", self.post_cond(200))
        self.always("down: GET outbound still 200", self.status_is("GET", read_outbound, 200))
        self.always("down: GET inbound still 200", self.status_is("GET", read_inbound, 200))
        for inst in self.instances_of("outbound") + self.instances_of("inbound"):
            self.always(f"down: {inst} /health/ready still 200",
                        self.status_is("GET", f"{self.instances[inst]}/health/ready", 200))

    def full_cache(self):
        """Redis past its maxmemory, evicting: everything answers, and a cached first page is the one Cassandra has."""
        self.live_all()
        for inst in sorted(self.instances):
            self.always(f"down: {inst} /health/ready still 200",
                        self.status_is("GET", f"{self.instances[inst]}/health/ready", 200))
        self.always("down: POST outbound still 200", self.post_cond(200))
        self.social_graph_reads()
        first_page = f"{self.urls.inbound}/participant/{self.friend}/inbound"

        def same_page():
            cached, uncached = api.get(first_page), api.get(f"{first_page}?limit=21")
            if cached.status != 200 or uncached.status != 200:
                return False, f"first page -> {cached.describe()}, 21 rows -> {uncached.describe()}"
            got, want = [x.get("occurred") for x in cached.json()], [x.get("occurred") for x in uncached.json()[:20]]
            return got == want, f"{len(got)} rows, {sum(a != b for a, b in zip(got, want))} differ from Cassandra's"
        # posts keep coming: one read of each may fall between a post's row and its page; a stale page never matches
        self.eventually("down: the first page as the feed cache serves it is Cassandra's", same_page)

    def instance_down(self, killed, read_outbound, read_inbound, search):
        """An instance killed with -9: it is gone, the rest answers what does not need it."""
        service = killed.rsplit("-", 1)[0]
        self.live_all(skip=(killed,))
        self.always(f"down: {killed} gone (no answer)", self.gone(self.instances[killed]))
        others = [i for i in self.instances_of(service) if i != killed]
        if service == "inbound":
            for inst in others:
                self.ready(inst, 200)
                self.always(f"down: GET inbound on {inst} 200",
                            self.status_is("GET", f"{self.instances[inst]}/participant/{self.friend}/inbound", 200))
        if service in ("inbound", "search"):
            self.eventually("down: POST outbound 200 (the event waits in Kafka)", self.post_cond(200))
        if service == "social-graph" and not others:
            # outbound checks a poster with social-graph but does not wait for it: unanswered, the poster is taken
            # to exist (ParticipantClient.require); the fan-out waits for the friend lists
            self.eventually("down: POST outbound still 200 (a post does not wait for social-graph)",
                            self.post_cond(200))
            self.always("down: GET outbound still 200", self.status_is("GET", read_outbound, 200))
        if service != "inbound":
            self.always("down: GET inbound still 200", self.status_is("GET", read_inbound, 200))
        if service != "search":
            self.always("down: search still 200", self.status_is("GET", search, 200))
        if service != "social-graph":
            self.social_graph_reads()

    @staticmethod
    def gone(url):
        def cond():
            r = api.get(f"{url}/health/live", timeout=2)
            return r.status == 0, r.describe()
        return cond

    def recover(self, since, timeout):
        """Times, from `since` (the start of the store), until each stage of recovery is reached."""
        deadline = since + timeout
        times = {"fault": self.fault, "since": since}

        def left():
            return max(0.0, deadline - time.time())

        def all_ready():
            return all(api.get(f"{url}/health/ready", timeout=3).status == 200 for url in self.instances.values())
        ok, _ = api.wait_for(all_ready, left())
        times["ready_s"] = round(time.time() - since, 1) if ok else None
        self.record("recovered: every instance /health/ready 200", bool(ok),
                    f"{times['ready_s']}s after the restart" if ok else f"not within {timeout}s")

        kw = f"nf{self.graph['run']}y{int(since) % 1000000:06d}"
        body = {"from": api.link(self.poster), "subject": f"fault marker {kw}",
                "story": f"marker after {self.fault}, keyword {kw}"}
        acked = [None]

        def post_once():
            r = api.post(f"{self.urls.outbound}/participant/{self.poster}/outbound", body, timeout=15)
            if 200 <= r.status < 300:
                acked[0] = r.json()
                return True
            return False
        ok, _ = api.wait_for(post_once, left(), interval=1.0)
        times["post_s"] = round(time.time() - since, 1) if ok else None
        self.record("recovered: a new post is acknowledged", bool(ok),
                    f"{times['post_s']}s after the restart" if ok else f"not within {timeout}s")
        if ok:
            self.keep_marker(f"marker-{self.fault}", kw, body["subject"], 200)

            marker_at = when(acked[0]["occurred"])

            def in_inbound():
                # the ledger keeps posting: after a backlog the marker can be pages deep, so walk the pages back
                # to the marker's time (the feed is newest first)
                cursor = ""
                for _ in range(100):
                    r = api.get(f"{self.urls.inbound}/participant/{self.friend}/inbound?limit=100{cursor}", timeout=5)
                    rows = r.json()
                    if r.status != 200 or not isinstance(rows, list):
                        return False
                    if any(x.get("subject") == body["subject"] for x in rows):
                        return True
                    nxt = r.headers.get("x-next-cursor")
                    if not rows or not nxt or when(rows[-1]["occurred"]) < marker_at:
                        return False
                    cursor = "&cursor=" + urllib.parse.quote(nxt, safe="")
                return False

            def searchable():
                rows = api.get(f"{self.urls.search}/outbound?posts=true&keywords={kw}", timeout=5).json()
                return isinstance(rows, list) and any(x.get("subject") == body["subject"] for x in rows)
            for key, name, cond in (("fanout_s", "the new post reaches a friend's inbound", in_inbound),
                                    ("search_s", "the new post is searchable", searchable)):
                ok, _ = api.wait_for(cond, left())
                times[key] = round(time.time() - since, 1) if ok else None
                self.record(f"recovered: {name}", bool(ok),
                            f"{times[key]}s after the restart" if ok else f"not within {timeout}s")
        with open(os.path.join(self.out_dir, "recovery.jsonl"), "a") as f:
            f.write(json.dumps(times) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["down", "recover"])
    p.add_argument("fault")
    p.add_argument("graph")
    p.add_argument("out_dir")
    p.add_argument("--since", type=float)
    p.add_argument("--timeout", type=float, default=120)
    a = p.parse_args()
    probe = Probe(a.fault, json.load(open(a.graph)), a.out_dir)
    if a.mode == "down":
        probe.down()
        probe.run_plan()
    else:
        probe.recover(a.since or time.time(), a.timeout)
    sys.exit(1 if probe.failed else 0)


if __name__ == "__main__":
    main()
