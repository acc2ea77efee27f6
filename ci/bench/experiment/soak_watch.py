"""Per-minute samples of a long run (benchmarks.sh's soak step) and the table made of them.

  soak_watch.py sample DIR INTERVAL_S PID_FILE... -- URL...
      every INTERVAL_S seconds, until killed: the services' metrics (as server_metrics.py snapshot) into
      DIR/server-NNN.json and the resident memory (VmRSS) of each process named by a pid file ("PID START" as
      ci/local writes them; the file's name without .pid names the process) as a line of DIR/rss.jsonl
  soak_watch.py table DIR [CASSANDRA_LOG]
      a Markdown table, one row per interval (its end, seconds after the first sample): posts/s and reads/s
      served, their p95 at the services, the mean fan-out delay, each process's RSS and the Cassandra compactions
      that ended in the interval (from the "Compacted" lines Cassandra logs at INFO, with the size they read)
"""
import glob
import json
import os
import re
import sys
import time

from server_metrics import snapshot, window

POST = "outbound POST /participant/:id/outbound"
READ = "inbound GET /participant/:id/inbound"


def process_name(pid_file):
    """The name a pid file gives its process: the file's name without .pid (e.g. inbound-1, cassandra)."""
    return os.path.basename(pid_file)[:-len(".pid")]


def rss_mib(pid_file):
    try:
        with open(pid_file) as f:
            pid = f.read().split()[0]
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024)
    except (OSError, IndexError, ValueError):
        return None                      # a process that is gone has no memory to report
    return None


def sample(out_dir, interval, pid_files, urls):
    n = 0
    while True:
        started = time.time()
        snapshot(os.path.join(out_dir, f"server-{n:03d}.json"), urls)
        rss = {process_name(p): rss_mib(p) for p in pid_files}
        with open(os.path.join(out_dir, "rss.jsonl"), "a") as f:
            f.write(json.dumps({"n": n, "t": round(started, 3), "rss_mib": rss}) + "\n")
        n += 1
        time.sleep(max(0.0, interval - (time.time() - started)))


COMPACTED = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) .* - Compacted .*?\.\s+([\d.]+)(B|KiB|MiB|GiB) to ")
UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def compactions(path):
    """[(unix seconds, bytes read)] of the compactions the log says ended (its times are the machine's local time)."""
    ended = []
    if path and os.path.exists(path):
        with open(path, errors="replace") as f:
            for line in f:
                m = COMPACTED.search(line)
                if m:
                    at = time.mktime(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")) + int(m.group(2)) / 1000
                    ended.append((at, float(m.group(3)) * UNITS[m.group(4)]))
    return ended


def table(out_dir, cassandra_log=None):
    snapshots = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out_dir, "server-*.json")))]
    rss = [json.loads(line) for line in open(os.path.join(out_dir, "rss.jsonl")) if line.strip()]
    ended = compactions(cassandra_log)
    names = sorted({name for r in rss for name in r["rss_mib"]})
    head = ["end (s)", "posts/s", "post p95 ms", "reads/s", "read p95 ms", "fan-out ms"] + \
        [f"{n} MiB" for n in names] + ["compactions", "compacted MiB"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---:|" * len(head))
    for i in range(1, min(len(snapshots), len(rss))):
        seconds = rss[i]["t"] - rss[i - 1]["t"]
        w = window(snapshots[i - 1], snapshots[i])
        post, read = w.get(POST, {}), w.get(READ, {})
        done = [b for at, b in ended if rss[i - 1]["t"] < at <= rss[i]["t"]]
        cells = [f"{rss[i]['t'] - rss[0]['t']:.0f}", f"{post.get('n', 0) / seconds:.0f}", str(post.get("p95", "-")),
                 f"{read.get('n', 0) / seconds:.0f}", str(read.get("p95", "-")), str(w.get("fanout_ms", "-"))]
        cells += [str(rss[i]["rss_mib"].get(n, "-")) for n in names]
        cells += [str(len(done)), f"{sum(done) / 2**20:.0f}"]
        print("| " + " | ".join(cells) + " |")


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "sample" and "--" in sys.argv:
        split = sys.argv.index("--")
        sample(sys.argv[2], float(sys.argv[3]), sys.argv[4:split], sys.argv[split + 1:])
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
