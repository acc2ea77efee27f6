"""The social-graph ledger: participant creates and befriends at a steady rate through a PostgreSQL fault, with the
outcome of every one recorded, so graph_verify.py can check that what was answered 200 is stored once and what was
never answered 200 is stored nowhere.

Usage: graph_ledger.py OUT_DIR [--rate 4] [--pairs 200] [--timeout 20] [--retry-seconds 30] [--once-every 3]
                       [--max-seconds 300]
First it makes 2 x --pairs participants (the ends of the friendships it asks for, each pair at most once), then
runs until OUT_DIR/graph-stop exists (or SIGTERM, or --max-seconds). Open loop: write k is due at start + k/rate;
an even k creates participant "fault graph RUN k" with that name as its Idempotency-Key, an odd k befriends the
next pair. Each is retried after a 503 or no answer for up to --retry-seconds (the create with its key, as a
careful client does), except every --once-every-th, sent once: a client that gives up, whose 503 must mean the
write shows up nowhere.

Writes OUT_DIR/graph-pool.json (the run and the pairs) and OUT_DIR/graph.jsonl (one line per write: seq, kind,
name or pair, the attempts' statuses, outcome, the answered id), and prints a summary line.
"""
import argparse
import json
import os
import signal
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import api


def create(urls, name, timeout, key=None):
    return api.post(f"{urls.social_graph}/participant", {"name": name}, timeout=timeout,
                    headers={"Idempotency-Key": key} if key else None)


def make_pool(urls, run, pairs):
    ids = []
    for i in range(2 * pairs):
        r = create(urls, f"fault graph {run} end {i}", 10.0)
        if r.status != 200:
            raise SystemExit(f"graph ledger: creating the pool's participant {i} answered {r.describe()}")
        ids.append(r.json()["id"])
    return [[ids[2 * i], ids[2 * i + 1]] for i in range(pairs)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out_dir")
    p.add_argument("--rate", type=float, default=4.0)
    p.add_argument("--pairs", type=int, default=200)
    p.add_argument("--timeout", type=float, default=20.0)
    p.add_argument("--retry-seconds", type=float, default=30.0)
    p.add_argument("--once-every", type=int, default=3)
    p.add_argument("--max-seconds", type=float, default=300.0)
    a = p.parse_args()
    urls = api.Urls()
    run = f"{int(time.time())}"
    pairs = make_pool(urls, run, a.pairs)
    with open(os.path.join(a.out_dir, "graph-pool.json"), "w") as f:
        json.dump({"run": run, "pairs": pairs}, f)

    stop_file = os.path.join(a.out_dir, "graph-stop")
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    lock = threading.Lock()
    counts = Counter()
    out = open(os.path.join(a.out_dir, "graph.jsonl"), "w")

    def send(seq):
        once = (seq // 2) % a.once_every == 0
        pair = pairs[seq // 2]
        name = f"fault graph {run} {seq}"
        line = {"seq": seq, "kind": "participant", "name": name} if seq % 2 == 0 else \
            {"seq": seq, "kind": "friendship", "pair": pair}

        def attempt():
            if line["kind"] == "participant":
                return create(urls, name, a.timeout, key=name)
            return api.post(f"{urls.social_graph}/participant/{pair[0]}/friends",
                            {"from": api.link(pair[0]), "to": api.link(pair[1])}, timeout=a.timeout)

        r, statuses, sent = api.retried(attempt, a.retry_seconds, once=once)
        outcome = "acknowledged" if r.status == 200 else "503" if r.status == 503 else f"status {r.status}"
        body = r.json() if r.status == 200 else None
        line.update(statuses=statuses, outcome=outcome, once=once, sent=round(sent, 3),
                    id=body.get("id") if isinstance(body, dict) else None)
        with lock:
            counts[f"{line['kind']} {outcome}"] += 1
            out.write(json.dumps(line) + "\n")
            out.flush()

    start, seq = time.monotonic(), 0
    with ThreadPoolExecutor(200) as pool:
        while (not stopping.is_set() and not os.path.exists(stop_file) and time.monotonic() - start < a.max_seconds
               and seq // 2 < len(pairs)):
            delay = start + seq / a.rate - time.monotonic()
            if delay > 0:
                time.sleep(min(delay, 0.2))
                continue
            pool.submit(send, seq)
            seq += 1
    out.close()
    print(f"graph ledger: {seq} writes in {time.monotonic() - start:.0f}s: {dict(sorted(counts.items()))}",
          flush=True)


if __name__ == "__main__":
    main()
