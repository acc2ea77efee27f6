"""Final check of the fault suite: every acknowledged post is in its poster's outbound, exactly once in every
friend's inbound, and findable by its unique keyword in search; no post answered 503 at every attempt is in its
poster's outbound, in a friend's inbound or in search (a retraction may still be on its way: waited for like a
missing post); no post never answered is in its poster's outbound only (an orphan: waited for too, outbound's
reconciler may still publish it). Posts are counted by content (poster, subject), so a retry that made a second post shows as a
duplicate. verify.json lists the keywords of the posts lost, duplicated, phantom and orphaned, for the report's
per-fault table.

Usage: verify.py GRAPH.json OUT_DIR [--timeout 120] [--workers 8]
Reads OUT_DIR/posts.jsonl (the ledger) and OUT_DIR/markers.jsonl (posts acknowledged by the probes). The
consumers may still be catching up, so the check is repeated until it passes or the timeout is spent; only
what is still missing is fetched again. Prints `ok - ...` / `FAIL - ...` lines, writes OUT_DIR/verify.json.
"""
import argparse
import json
import os
import sys
import time
import urllib.parse
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import api


def load_posts(out_dir):
    acked, rejected = [], []
    for name in ("posts.jsonl", "markers.jsonl"):
        path = os.path.join(out_dir, name)
        if not os.path.exists(path):
            continue
        for line in open(path):
            post = json.loads(line)
            (acked if post["outcome"] == "acknowledged" else rejected).append(post)
    return acked, rejected


class Verifier:
    def __init__(self, graph, acked, workers, refused=(), unanswered=()):
        self.urls = api.Urls()
        self.friends = {int(k): v for k, v in graph["friends"].items()}
        self.acked = acked
        self.pool = ThreadPoolExecutor(workers)
        # expected[(participant, subject)] = the poster; one inbound delivery per friend of the poster
        self.deliveries = {(f, p["subject"]): p["poster"] for p in acked for f in self.friends[p["poster"]]}
        # the posts the client was told failed (503 at the last attempt): their deliveries must not show up
        self.refused = list(refused)
        self.deliveries.update({(f, p["subject"]): p["poster"] for p in self.refused for f in self.friends[p["poster"]]})
        # posts never answered (the outbound instance was killed): either outcome is fine, half of one is not
        self.unanswered = list(unanswered)
        self.deliveries.update({(f, p["subject"]): p["poster"] for p in self.unanswered
                                for f in self.friends[p["poster"]]})
        self.outbound_counts, self.inbound_counts, self.search_counts = Counter(), Counter(), Counter()
        self.read_errors = Counter()

    def fetch_outbound(self, posters):
        def one(pid):
            return pid, api.feed(f"{self.urls.outbound}/participant/{pid}/outbound")
        for pid, rows in self.pool.map(one, posters):
            if rows is None:
                self.read_errors["outbound"] += 1
                continue
            for key in [k for k in self.outbound_counts if k[0] == pid]:
                del self.outbound_counts[key]
            for r in rows:
                if r.get("from") == api.link(pid):
                    self.outbound_counts[(pid, r.get("subject"))] += 1

    def fetch_inbound(self, participants):
        def one(pid):
            return pid, api.feed(f"{self.urls.inbound}/participant/{pid}/inbound")
        for pid, rows in self.pool.map(one, participants):
            if rows is None:
                self.read_errors["inbound"] += 1
                continue
            for key in [k for k in self.inbound_counts if k[0] == pid]:
                del self.inbound_counts[key]
            for r in rows:
                # a row counts only with the right sender and the right addressee
                key = (pid, r.get("subject"))
                if key in self.deliveries and r.get("from") == api.link(self.deliveries[key]) \
                        and r.get("to") == api.link(pid):
                    self.inbound_counts[key] += 1

    def fetch_search(self, posts):
        def one(p):
            kw = urllib.parse.quote(p["keyword"])
            r = api.get(f"{self.urls.search}/outbound?posts=true&limit=10&keywords={kw}")
            rows = r.json()
            if r.status != 200 or not isinstance(rows, list):
                return p, None
            return p, sum(1 for x in rows if x.get("subject") == p["subject"] and x.get("from") == api.link(p["poster"]))
        for p, n in self.pool.map(one, posts):
            if n is None:
                self.read_errors["search"] += 1
            else:
                self.search_counts[p["subject"]] = n

    def everywhere(self, p):
        return all(self.inbound_counts[(f, p["subject"])] for f in self.friends[p["poster"]]) \
            and self.search_counts[p["subject"]] > 0

    def orphaned_posts(self):
        """Unanswered posts stored in their poster's outbound but not fanned out to every friend or not indexed:
        what a crash between the row's write and the event's publish would leave without the reconciler."""
        return [p for p in self.unanswered if self.outbound_counts[(p["poster"], p["subject"])] and not self.everywhere(p)]

    def orphans(self):
        stored = [p for p in self.unanswered if self.outbound_counts[(p["poster"], p["subject"])]]
        orphaned = self.orphaned_posts()
        return {"unanswered": len(self.unanswered), "stored": len(stored), "orphaned": len(orphaned),
                "examples": [p["keyword"] for p in orphaned][:5]}

    def expected_deliveries(self):
        refused = {p["subject"] for p in self.refused}
        refused |= {p["subject"] for p in self.unanswered}
        return [k for k in self.deliveries if k[1] not in refused]

    def phantom_posts(self):
        """{where: [refused posts visible there]}, once the consumers had the verification's time to catch up."""
        shown = {k[1] for k, n in self.inbound_counts.items() if n}
        return {"outbound": [p for p in self.refused if self.outbound_counts[(p["poster"], p["subject"])]],
                "inbound": [p for p in self.refused if p["subject"] in shown],
                "search": [p for p in self.refused if self.search_counts[p["subject"]]]}

    def phantoms(self):
        return {where: len(posts) for where, posts in self.phantom_posts().items()}

    def per_post(self):
        """The keywords of the posts lost (acknowledged, missing anywhere), duplicated (anywhere), phantom
        (refused, visible anywhere) and orphaned (unanswered, stored, not everywhere)."""
        out_missing, in_missing, search_missing = self.missing()
        by_subject = {p["subject"]: p for p in self.acked}
        lost = {p["keyword"] for p in out_missing + search_missing} | {by_subject[k[1]]["keyword"] for k in in_missing
                                                                        if k[1] in by_subject}
        dup = {p["keyword"] for p in self.acked if self.outbound_counts[(p["poster"], p["subject"])] > 1
               or self.search_counts[p["subject"]] > 1}
        dup |= {by_subject[k[1]]["keyword"] for k in self.expected_deliveries()
                if self.inbound_counts[k] > 1 and k[1] in by_subject}
        phantom = {p["keyword"] for posts in self.phantom_posts().values() for p in posts}
        orphaned = [p["keyword"] for p in self.orphaned_posts()]
        return {"lost": sorted(lost), "duplicated": sorted(dup), "phantom": sorted(phantom), "orphaned": orphaned}

    def missing(self):
        out_missing = [p for p in self.acked if self.outbound_counts[(p["poster"], p["subject"])] == 0]
        in_missing = [k for k in self.expected_deliveries() if self.inbound_counts[k] == 0]
        search_missing = [p for p in self.acked if self.search_counts[p["subject"]] == 0]
        return out_missing, in_missing, search_missing

    def run(self, timeout):
        start = time.monotonic()
        posters = sorted({p["poster"] for p in self.acked + self.refused + self.unanswered})
        self.fetch_outbound(posters)
        t_out = time.monotonic()
        self.fetch_inbound(sorted({k[0] for k in self.deliveries}))
        t_in = time.monotonic()
        self.fetch_search(self.acked + self.refused + self.unanswered)
        print(f"# first round: outbound {t_out - start:.1f}s, inbound {t_in - t_out:.1f}s, "
              f"search {time.monotonic() - t_in:.1f}s", flush=True)
        rounds = 1
        # what is missing may still arrive, and a phantom may still be retracted: both are read again until settled
        # and an orphan may still be published by outbound's reconciler
        while (any(self.missing()) or any(self.phantom_posts().values()) or self.orphaned_posts()) \
                and time.monotonic() - start < timeout:
            time.sleep(3)
            out_missing, in_missing, search_missing = self.missing()
            phantom, orphaned = self.phantom_posts(), self.orphaned_posts()
            self.fetch_outbound(sorted({p["poster"] for p in out_missing + phantom["outbound"]}))
            self.fetch_inbound(sorted({k[0] for k in in_missing}
                                      | {f for p in phantom["inbound"] + orphaned for f in self.friends[p["poster"]]}))
            self.fetch_search(search_missing + phantom["search"] + orphaned)
            rounds += 1
        return rounds, time.monotonic() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("graph")
    p.add_argument("out_dir")
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--workers", type=int, default=8)
    a = p.parse_args()
    graph = json.load(open(a.graph))
    acked, rejected = load_posts(a.out_dir)
    # told it failed, every time: an attempt without an answer may have made the post, which a later 503 (this
    # attempt failed) does not undo
    refused = [p for p in rejected if all(st == 503 for st in p.get("statuses", [p["status"]]))]
    unanswered = [p for p in rejected if p not in refused and all(st == 0 for st in p.get("statuses", [p["status"]]))]
    v = Verifier(graph, acked, a.workers, refused, unanswered)
    rounds, seconds = v.run(a.timeout)
    out_missing, in_missing, search_missing = v.missing()
    dup = {
        "outbound": sum(1 for p in acked if v.outbound_counts[(p["poster"], p["subject"])] > 1),
        "inbound": sum(1 for k in v.expected_deliveries() if v.inbound_counts[k] > 1),
        "search": sum(1 for p in acked if v.search_counts[p["subject"]] > 1),
    }
    result = {
        "acknowledged": len(acked), "rejected_or_unanswered": len(rejected),
        "verify_rounds": rounds, "verify_seconds": round(seconds, 1), "read_errors": dict(v.read_errors),
        "outbound": {"expected": len(acked), "found": len(acked) - len(out_missing), "missing": len(out_missing),
                     "duplicates": dup["outbound"]},
        "inbound": {"expected": len(v.expected_deliveries()), "found": len(v.expected_deliveries()) - len(in_missing),
                    "missing": len(in_missing), "duplicates": dup["inbound"]},
        "search": {"expected": len(acked), "found": len(acked) - len(search_missing),
                   "missing": len(search_missing), "duplicates": dup["search"]},
        "examples": {
            "outbound_missing": [p["subject"] for p in out_missing[:5]],
            "inbound_missing": [list(k) for k in in_missing[:5]],
            "search_missing": [p["keyword"] for p in search_missing[:5]],
        },
        # posts answered 503 that are visible anyway (an unanswered post's outcome is unknown: not counted)
        "refused": len(refused), "phantoms": v.phantoms(),
        "unanswered": v.orphans(),
        "posts": v.per_post(),
    }
    with open(os.path.join(a.out_dir, "verify.json"), "w") as f:
        json.dump(result, f, indent=1)

    failed = 0

    def check(name, ok, detail):
        nonlocal failed
        failed += 0 if ok else 1
        print(f"{'ok' if ok else 'FAIL'} - {name} ({detail})", flush=True)

    check("ledger: posts were acknowledged", len(acked) > 0, f"{len(acked)} acknowledged, {len(rejected)} not")
    for where, what in (("outbound", "every acknowledged post is in its poster's outbound"),
                        ("inbound", "every acknowledged post is exactly once in every friend's inbound"),
                        ("search", "every acknowledged post is findable by its keyword")):
        r = result[where]
        check(what, r["expected"] > 0 and r["missing"] == 0 and r["duplicates"] == 0,
              f"expected {r['expected']}, found {r['found']}, missing {r['missing']}, duplicates {r['duplicates']}")
    # outbound cancels the row of a refused post, and retracts its event when the publish failed (it may have
    # reached the broker): nowhere, once the consumers applied the retractions
    ph = result["phantoms"]
    check("posts answered 503 are nowhere: not in the poster's outbound, a friend's inbound or search",
          len(refused) > 0 and not any(ph.values()),
          f"{len(refused)} refused, visible in outbound {ph['outbound']}, inbound {ph['inbound']}, search {ph['search']}"
          f" {result['posts']['phantom'][:5]}")
    # a post never answered may be anywhere or nowhere, never only in its poster's outbound (outbound's reconciler
    # publishes the event of a row its dead process left behind)
    o = result["unanswered"]
    check("posts never answered: none orphaned (in the poster's outbound, not everywhere)", o["orphaned"] == 0,
          f"{o['unanswered']} never answered, {o['stored']} of them stored, orphaned {o['orphaned']} {o['examples']}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
