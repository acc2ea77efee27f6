"""Creates the fault test's social graph through social-graph and writes it to a JSON file.

Usage: seed.py OUT.json [--posters 30] [--min-friends 5] [--max-friends 10] [--seed 9]
Every poster gets a random number of friends among the other posters (symmetric degree within the bounds);
the file holds {"run": <tag>, "posters": [ids], "friends": {"<id>": [ids]}} as social-graph reports it back.
Exit 1 when a participant or friendship could not be created or social-graph lists other friends than asked.
"""
import argparse
import json
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import api


def make_pairs(n, lo, hi, rng):
    """Random undirected pairs over 0..n-1 such that every node has lo..hi neighbours (hi is a hard cap)."""
    target = [rng.randint(lo, hi) for _ in range(n)]
    adj = [set() for _ in range(n)]
    for i in rng.sample(range(n), n):
        candidates = [j for j in range(n) if j != i and j not in adj[i] and len(adj[j]) < hi]
        rng.shuffle(candidates)
        while len(adj[i]) < target[i] and candidates:
            j = candidates.pop()
            adj[i].add(j)
            adj[j].add(i)
    return sorted({(min(i, j), max(i, j)) for i in range(n) for j in adj[i]})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--posters", type=int, default=30)
    p.add_argument("--min-friends", type=int, default=5)
    p.add_argument("--max-friends", type=int, default=10)
    p.add_argument("--seed", type=int, default=9)
    a = p.parse_args()
    urls = api.Urls()
    rng = random.Random(a.seed)
    run = "r" + format(int(time.time() * 1000) % (36 ** 6), "x")

    def create(i):
        r = api.post(f"{urls.social_graph}/participant", {"name": f"fault poster {run} {i}"})
        body = r.json()
        if r.status != 200 or not isinstance(body, dict) or "id" not in body:
            raise SystemExit(f"POST /participant answered {r.describe()}")
        return api.id_of(body["id"])

    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(create, range(a.posters)))
    pairs = make_pairs(a.posters, a.min_friends, a.max_friends, rng)

    def befriend(pair):
        x, y = ids[pair[0]], ids[pair[1]]
        r = api.post(f"{urls.social_graph}/participant/{x}/friends", {"from": api.link(x), "to": api.link(y)})
        if r.status != 200:
            raise SystemExit(f"POST /participant/{x}/friends -> {y} answered {r.describe()}")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(befriend, pairs))

    expected = {pid: set() for pid in ids}
    for i, j in pairs:
        expected[ids[i]].add(ids[j])
        expected[ids[j]].add(ids[i])
    friends = {}
    for pid in ids:
        rows = api.feed(f"{urls.social_graph}/participant/{pid}/friends", limit=100)
        if rows is None:
            raise SystemExit(f"GET /participant/{pid}/friends failed")
        got = {api.id_of(r["to"]) if api.id_of(r["from"]) == pid else api.id_of(r["from"]) for r in rows}
        if got != expected[pid]:
            raise SystemExit(f"friends of {pid}: social-graph lists {sorted(got)}, expected {sorted(expected[pid])}")
        friends[str(pid)] = sorted(got)
    with open(a.out, "w") as f:
        json.dump({"run": run, "posters": ids, "friends": friends}, f)
    degrees = [len(v) for v in friends.values()]
    print(f"seeded {len(ids)} posters, {len(pairs)} friendships (friends per poster {min(degrees)}..{max(degrees)})",
          file=sys.stderr)


if __name__ == "__main__":
    main()
