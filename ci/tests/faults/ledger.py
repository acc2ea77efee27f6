"""The ledger: posts at a steady rate for the whole fault window and records the outcome of every post.

Usage: ledger.py GRAPH.json OUT_DIR [--rate 20] [--workers 2000] [--timeout 20] [--retry-seconds 45]
                 [--once-every 5] [--max-seconds 900]
Runs until OUT_DIR/stop exists (or SIGTERM, or --max-seconds). Open loop: post k is due at start + k/rate and
goes to poster k mod N with a unique keyword, so each post can be found again in every feed and in search.
Every post carries its keyword as Idempotency-Key and is retried with it, as a careful client does, after a 503,
a 409, no answer or a timeout (not after 2xx or another 4xx) for up to --retry-seconds (0: never): the retries
must not make a second post, which the verification counts by content (poster, subject). Every --once-every-th
post is sent once and never retried, a client that gives up: a 503 it gets must mean the post shows up nowhere.

Writes OUT_DIR/posts.jsonl (one line per post: seq, poster, keyword, subject, the last attempt's status, the
attempts' statuses, sent and answered times) and OUT_DIR/ledger.json (counts by outcome, retried posts,
per-second timeline). Acknowledged = 2xx at some attempt.
"""
import argparse
import json
import os
import signal
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor

import api


def keyword(run, seq):
    # letters then digits: one token for Solr's standard tokenizer, untouched by the stemmer, unique per post
    return f"nf{run}x{seq:06d}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("graph")
    p.add_argument("out_dir")
    p.add_argument("--rate", type=float, default=20.0)
    # enough threads for rate x (the slowest answer + the retries): open loop
    p.add_argument("--workers", type=int, default=2000)
    p.add_argument("--timeout", type=float, default=20.0)
    # longer than outbound's 30 s lease of a key, so a retry can take over the key of an attempt that failed
    # without releasing it (Cassandra away): it then answers 409 until the lease runs out
    p.add_argument("--retry-seconds", type=float, default=45.0)
    p.add_argument("--once-every", type=int, default=5)
    p.add_argument("--max-seconds", type=float, default=900.0)
    a = p.parse_args()
    graph = json.load(open(a.graph))
    posters = graph["posters"]
    urls = api.Urls()
    stop_file = os.path.join(a.out_dir, "stop")
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())

    lock = threading.Lock()
    counts = Counter()
    retries = Counter()
    timeline = defaultdict(Counter)      # second since start -> outcome -> n
    free = threading.Semaphore(a.workers)
    out = open(os.path.join(a.out_dir, "posts.jsonl"), "w")
    start_wall, start = time.time(), time.monotonic()

    def outcome(r):
        if 200 <= r.status < 300:
            return "acknowledged"
        if r.status == 503:
            return "503"
        if r.status == 0:
            return "timeout" if "timed out" in r.error else "no_answer"
        return str(r.status)

    def send(seq, poster):
        try:
            kw = keyword(graph["run"], seq)
            subject = f"fault ledger {kw}"
            story = f"post {seq} of participant {poster}, keyword {kw}"
            r, statuses, sent = api.retried(
                lambda: api.post(f"{urls.outbound}/participant/{poster}/outbound",
                                 {"from": api.link(poster), "subject": subject, "story": story}, timeout=a.timeout,
                                 headers={"Idempotency-Key": kw}),
                a.retry_seconds, once=seq % a.once_every == 0,
                final=lambda status: 200 <= status < 500 and status != 409)
            kind = outcome(r)
            body = r.json() if kind == "acknowledged" else None
            line = {"seq": seq, "poster": poster, "keyword": kw, "subject": subject, "story": story,
                    "status": r.status, "statuses": statuses, "outcome": kind, "sent": round(sent, 3),
                    "answered": round(time.time(), 3),
                    "occurred": body.get("occurred") if isinstance(body, dict) else None}
            if kind not in ("acknowledged", "503"):
                line["response"] = r.describe()
            with lock:
                counts[kind] += 1
                if len(statuses) > 1:
                    retries["acknowledged_after_retry" if kind == "acknowledged" else "failed_after_retry"] += 1
                timeline[int(sent - start_wall)][kind] += 1
                out.write(json.dumps(line) + "\n")
                out.flush()
        finally:
            free.release()

    seq = 0
    with ThreadPoolExecutor(a.workers) as pool:
        while not stopping.is_set() and not os.path.exists(stop_file) and time.monotonic() - start < a.max_seconds:
            due = start + seq / a.rate
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(min(delay, 0.2))
                continue
            # open loop with bounded concurrency: a due post that finds no free worker is skipped and counted
            if free.acquire(blocking=False):
                pool.submit(send, seq, posters[seq % len(posters)])
            else:
                with lock:
                    counts["skipped_client_busy"] += 1
            seq += 1
    out.close()
    duration = time.monotonic() - start
    summary = {"rate": a.rate, "duration_seconds": round(duration, 1), "started": start_wall,
               "scheduled": seq, "counts": dict(counts), "retries": dict(retries),
               "timeline": {str(s): dict(c) for s, c in sorted(timeline.items())}}
    with open(os.path.join(a.out_dir, "ledger.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"ledger: {seq} posts scheduled in {duration:.0f}s: {dict(counts)}; retried: {dict(retries)}", flush=True)


if __name__ == "__main__":
    main()
