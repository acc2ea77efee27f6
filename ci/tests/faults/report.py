"""The fault suite's report: counts and recovery times from the run's files, as JSON and Markdown.

Usage: report.py OUT_DIR
Reads timeline.jsonl (fault events written by ci/tests/faults.sh), ledger.json and posts.jsonl (the ledger),
recovery.jsonl and probes.jsonl (ci/tests/faults/probe.py), verify.json (ci/tests/faults/verify.py). Writes report.json and
report.md into OUT_DIR, prints the Markdown, and prints one `ok/FAIL` line: every ledger post was answered with
2xx, 503 or, after the ledger's last retry, 409 (the key still leased by an attempt that failed): never another
error, never left unanswered. Exit 1 when that check fails.
"""
import json
import os
import sys
from collections import Counter, defaultdict


def jsonl(path):
    return [json.loads(line) for line in open(path)] if os.path.exists(path) else []


def load(path, default=None):
    return json.load(open(path)) if os.path.exists(path) else default


def fault_windows(timeline):
    """{fault: {event: epoch}} in the order the faults happened."""
    windows = defaultdict(dict)
    for e in timeline:
        windows[e["fault"]][e["event"]] = e["t"]
    return windows


def secs(a, b):
    return round(b - a, 1) if a is not None and b is not None else None


def main():
    out = sys.argv[1]
    windows = fault_windows(jsonl(os.path.join(out, "timeline.jsonl")))
    ledger = load(os.path.join(out, "ledger.json"), {})
    posts = jsonl(os.path.join(out, "posts.jsonl"))
    recovery = {r["fault"]: r for r in jsonl(os.path.join(out, "recovery.jsonl"))}
    probes = jsonl(os.path.join(out, "probes.jsonl"))
    verify = load(os.path.join(out, "verify.json"), {})
    order = list(windows)
    # the keywords of the posts the verification found lost, duplicated, phantom or orphaned
    outcome_of = {k: set(verify.get("posts", {}).get(k, [])) for k in ("lost", "duplicated", "phantom", "orphaned")}

    faults = []
    for i, name in enumerate(order):
        w = windows[name]
        end = windows[order[i + 1]].get("stop") if i + 1 < len(order) else None
        # the ledger's view: posts sent between this fault's stop and the next fault's stop
        inside = [p for p in posts if w.get("stop", 0) <= p["sent"] < (end or float("inf"))]
        rejected = [p for p in inside if p["outcome"] != "acknowledged"]
        rec = recovery.get(name, {})
        faults.append({
            "fault": name,
            "stop_s": secs(w.get("stop"), w.get("stopped")),
            "down_s": secs(w.get("stopped"), w.get("start")),
            "store_start_s": secs(w.get("start"), w.get("started")),
            "ready_s": rec.get("ready_s"), "post_s": rec.get("post_s"),
            "fanout_s": rec.get("fanout_s"), "search_s": rec.get("search_s"),
            "posts_sent": len(inside), "posts_retried": sum(1 for p in inside if len(p.get("statuses", [])) > 1),
            "posts_acknowledged": sum(1 for p in inside if p["outcome"] == "acknowledged"),
            **{k: sum(1 for p in inside if p["keyword"] in kws) for k, kws in outcome_of.items()},
            "posts_rejected": len(rejected),
            "rejected_by_outcome": dict(Counter(p["outcome"] for p in rejected)),
            "client_outage_s": secs(min(p["sent"] for p in rejected), max(p["answered"] for p in rejected))
            if rejected else 0.0,
            "probes_passed": sum(1 for p in probes if p["fault"] == name and p["ok"]),
            "probes_failed": sum(1 for p in probes if p["fault"] == name and not p["ok"]),
        })

    counts = ledger.get("counts", {})
    # while the only outbound instance is dead a post cannot be answered at all: no answer is what a client gets
    # then (from the fault's stop, less the ledger's 20 s timeout for posts in flight, to the next fault)
    dead = [(windows[n].get("stop", 0) - 20, windows[order[i + 1]].get("stop") if i + 1 < len(order) else None)
            for i, n in enumerate(order) if n.startswith("outbound-")]

    def explained(p):
        return p["outcome"] in ("acknowledged", "503", "409") or (
            p["outcome"] == "no_answer" and any(a <= p["sent"] < (b or float("inf")) for a, b in dead))
    bad = dict(Counter(p["outcome"] for p in posts if not explained(p)))
    report = {"ledger": {k: v for k, v in ledger.items() if k != "timeline"}, "faults": faults, "verify": verify}
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(report, f, indent=1)

    md = ["# Fault suite report", "",
          f"Ledger: {ledger.get('scheduled', 0)} posts scheduled at {ledger.get('rate')}/s over "
          f"{ledger.get('duration_seconds')} s; outcomes {json.dumps(counts)}; posts retried with their "
          f"Idempotency-Key {json.dumps(ledger.get('retries', {}))}.", ""]
    if verify:
        md += ["| property | expected | found | missing | duplicates |", "|---|---|---|---|---|"]
        for where in ("outbound", "inbound", "search"):
            r = verify[where]
            md.append(f"| {where} | {r['expected']} | {r['found']} | {r['missing']} | {r['duplicates']} |")
        md += ["", f"Verification: {verify['verify_rounds']} round(s), {verify['verify_seconds']} s. Posts answered 503 "
               f"(after every retry) yet visible: {json.dumps(verify['phantoms'])}.", ""]
        o = verify.get("unanswered")
        if o:
            md += [f"Posts never answered (their outbound instance killed): {o['unanswered']}; stored in the poster's "
                   f"outbound {o['stored']}, of those orphaned (not fanned out to every friend or not searchable) "
                   f"{o['orphaned']}.", ""]
    md += ["Per fault, the ledger's posts sent from its start to the next fault's: acknowledged, and of those lost "
           "(missing anywhere) or duplicated (anywhere); phantom: answered 503 at every attempt yet visible anywhere; "
           "orphaned: never answered, stored in the poster's outbound but not everywhere. Recovery, in seconds "
           "(stop/start: the fault's own; the rest from its end: every instance ready, a new post acknowledged, fanned "
           "out, searchable; client outage: first rejected post sent to last answered):", "",
           "| fault | posts sent | acknowledged | lost | duplicated | phantom | orphaned | retried | rejected | stop | down "
           "| start | ready | post | fan-out | search | client outage | probes ok/failed |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for f in faults:
        # a step without a store to stop and start (poison) has no timings: shown as "-"
        t = {k: "-" if v is None else v for k, v in f.items()}
        md.append(f"| {t['fault']} | {t['posts_sent']} | {t['posts_acknowledged']} | {t['lost']} | {t['duplicated']} | "
                  f"{t['phantom']} | {t['orphaned']} | {t['posts_retried']} | {t['posts_rejected']} | {t['stop_s']} | "
                  f"{t['down_s']} | {t['store_start_s']} | {t['ready_s']} | {t['post_s']} | {t['fanout_s']} | "
                  f"{t['search_s']} | {t['client_outage_s']} | {t['probes_passed']}/{t['probes_failed']} |")
    text = "\n".join(md) + "\n"
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    print(text, flush=True)
    ok = counts.get("acknowledged", 0) > 0 and not bad
    print(f"{'ok' if ok else 'FAIL'} - ledger: every post answered 2xx, 503 or 409, or not at all while outbound "
          f"was killed ({json.dumps(counts)}{'; unexplained ' + json.dumps(bad) if bad else ''})", flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
