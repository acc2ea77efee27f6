"""The schema Jobs' store-credential steps (charts/newsfeed/files/init) run against stand-ins of their tools.

  init_jobs.py CHART_DIR

Offline and fast, the scripts run for real against stand-ins that record every call (the store-auth suite,
ci/tests/store-auth.sh, runs them against real stores with authentication): kafka.sh with fake Kafka tools (KAFKA_BIN), cassandra.sh with a fake cqlsh (PATH), solr.py against
a fake Solr (HTTP). Checked: the Kafka SCRAM users and ACLs are the documented matrix and nothing more, the
Cassandra roles get LOGIN, no SUPERUSER and SELECT, MODIFY on the keyspace only, a quote in a password stays inside
its CQL literal, search's Solr user, role and permissions are set (updated, not duplicated, on a second run), every
Solr request authenticates as the admin, no service password is on a command line or in the output, and the files
that carry them are readable by their owner only and gone afterwards. Prints `ok - `/`FAIL - ` lines; exits 1 on any
failure.
"""
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# a stand-in tool: logs its name and arguments, and the mode and content of the files it is given
STUB = r"""#!/bin/sh
{ printf 'CALL %s' "$(basename "$0")"; for a in "$@"; do printf ' %s' "$a"; done; printf '\n'; } >> "$STUB_LOG"
prev=""
for a in "$@"; do
  case $prev in
    --command-config|--add-config-file|-f) printf 'FILE %s %s\n' "$(stat -c %a "$a")" "$(tr '\n' '|' < "$a")" >> "$STUB_LOG" ;;
  esac
  prev=$a
done
case "$*" in *--describe*) echo "Topic: t PartitionCount: 6 ReplicationFactor: 1" ;; esac
"""

PASSWORDS = {"admin": "Adm1nPass", "outbound": "0utPass-1", "inbound": "1nPass_2", "search": "SearchPass.3",
             "kafka-lag-exporter": "LagPass_4"}
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'FAIL'} - {name}")
    if not ok and detail:
        print("    " + str(detail).replace("\n", "\n    "))


def stubs(work, names):
    bin_dir = os.path.join(work, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    for name in names:
        path = os.path.join(bin_dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(STUB)
        os.chmod(path, 0o755)
    return bin_dir


def run(cmd, env, work):
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    full = dict(os.environ, TMPDIR=tmp, STUB_LOG=os.path.join(work, "log"), **env)
    out = subprocess.run(cmd, env=full, capture_output=True, text=True, timeout=60)
    log = open(full["STUB_LOG"], encoding="utf-8").read() if os.path.exists(full["STUB_LOG"]) else ""
    return out, log, os.listdir(tmp)


def kafka(chart):
    with tempfile.TemporaryDirectory() as work:
        bin_dir = stubs(work, ["kafka-topics.sh", "kafka-configs.sh", "kafka-acls.sh", "kafka-broker-api-versions.sh"])
        env = {"KAFKA_BIN": bin_dir, "KAFKA_BOOTSTRAP_SERVERS": "k:9092", "KAFKA_TOPIC": "events", "PARTITIONS": "6",
               "REPLICATION_FACTOR": "1", "RETENTION_MS": "1", "DEAD_LETTER_TOPICS": "events.g-in.dl events.g-se.dl",
               "DEAD_LETTER_RETENTION_MS": "2", "KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
               "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "admin",
               "KAFKA_SASL_PASSWORD": PASSWORDS["admin"], "INBOUND_GROUP": "g-in", "SEARCH_GROUP": "g-se",
               "INBOUND_DEAD_LETTER_TOPIC": "events.g-in.dl", "SEARCH_DEAD_LETTER_TOPIC": "events.g-se.dl"}
        for service in ("outbound", "inbound", "search", "kafka-lag-exporter"):
            env[f"{service.upper().replace('-', '_')}_USERNAME"] = f"u-{service}"
            env[f"{service.upper().replace('-', '_')}_PASSWORD"] = PASSWORDS[service]
        out, log, left = run(["sh", os.path.join(chart, "files/init/kafka.sh"), "apply"], env, work)
        check("kafka.sh apply with SASL succeeds", out.returncode == 0, out.stderr + out.stdout)
        calls = [line for line in log.splitlines() if line.startswith("CALL ")]
        files = [line for line in log.splitlines() if line.startswith("FILE ")]
        acls = set()
        for call in calls:
            if " kafka-acls.sh " in call and " --add " in call:
                args = call.split()
                who = args[args.index("--allow-principal") + 1]
                ops = tuple(sorted(args[i + 1] for i, a in enumerate(args) if a == "--operation"))
                for kind in ("--topic", "--group"):
                    if kind in args:
                        acls.add((who, ops, kind[2:], args[args.index(kind) + 1]))
        want = {("User:u-outbound", ("Describe", "Write"), "topic", "events"),
                ("User:u-inbound", ("Describe", "Read"), "topic", "events"),
                ("User:u-inbound", ("Read",), "group", "g-in"),
                ("User:u-inbound", ("Describe", "Write"), "topic", "events.g-in.dl"),
                ("User:u-search", ("Describe", "Read"), "topic", "events"),
                ("User:u-search", ("Read",), "group", "g-se"),
                ("User:u-search", ("Describe", "Write"), "topic", "events.g-se.dl"),
                ("User:u-kafka-lag-exporter", ("Describe",), "topic", "*"),
                ("User:u-kafka-lag-exporter", ("Describe",), "group", "*")}
        check("kafka ACLs are exactly the documented matrix (outbound writes the events, the consumers read them in "
              "their group and write their own dead-letter topic, the lag exporter describes every topic and group)",
              acls == want,
              f"got {sorted(acls)}\nwant {sorted(want)}")
        scram = sorted(f for f in files if "password=" in f and "iterations" in f)
        want_scram = sorted(f"FILE 600 SCRAM-SHA-512=iterations=8192,password={PASSWORDS[s]}|"
                            for s in ("outbound", "inbound", "search", "kafka-lag-exporter"))
        check("each service's and the lag exporter's SCRAM credential from a 0600 file (replaced on every run)",
              scram == want_scram,
              "\n".join(scram))
        users = [c.split("--entity-name ")[1].split()[0] for c in calls if "--entity-type users" in c]
        check("SCRAM credentials set for the four users",
              sorted(users) == ["u-inbound", "u-kafka-lag-exporter", "u-outbound", "u-search"], users)
        admin = [f for f in files if "sasl.jaas.config" in f]
        check("every tool call logs in as the admin, from a 0600 file",
              bool(admin) and all(f.startswith("FILE 600 ") and 'username="admin"' in f for f in admin)
              and all("--command-config" in c for c in calls), "\n".join(calls[:3]))
        secrets = list(PASSWORDS.values())
        check("no password on a command line or in the output",
              not any(p in c for c in calls for p in secrets) and not any(p in out.stdout + out.stderr for p in secrets))
        check("no credential file left behind", left == [], left)
        bad = dict(env, SEARCH_PASSWORD="has,comma")
        out, _, _ = run(["sh", os.path.join(chart, "files/init/kafka.sh"), "apply"], bad, work)
        check("kafka.sh refuses a password Bitnami's lists or a properties file would split",
              out.returncode != 0 and "has,comma" not in out.stderr, out.stderr)


def cassandra(chart):
    with tempfile.TemporaryDirectory() as work:
        bin_dir = stubs(work, ["cqlsh"])
        env = {"PATH": bin_dir + os.pathsep + os.environ["PATH"], "CASSANDRA_CONTACT_POINTS": "c:9042",
               "CASSANDRA_USERNAME": "su", "CASSANDRA_PASSWORD": "SuperPass", "CASSANDRA_KEYSPACE": "feeds",
               "OUTBOUND_ROLE": "r_out", "OUTBOUND_PASSWORD": "it's-0ut", "INBOUND_ROLE": "r_in",
               "INBOUND_PASSWORD": PASSWORDS["inbound"]}
        out, log, left = run(["sh", os.path.join(chart, "files/init/cassandra.sh"), "apply"], env, work)
        check("cassandra.sh apply with service roles succeeds", out.returncode == 0, out.stderr + out.stdout)
        roles = [line for line in log.splitlines() if line.startswith("FILE ") and "ROLE" in line]
        statements = roles[0].split(" ", 2)[2].split("|") if roles else []
        want = ["CREATE ROLE IF NOT EXISTS r_out WITH PASSWORD = 'it''s-0ut' AND LOGIN = true AND SUPERUSER = false;",
                "GRANT SELECT ON KEYSPACE feeds TO r_out;", "GRANT MODIFY ON KEYSPACE feeds TO r_out;",
                f"CREATE ROLE IF NOT EXISTS r_in WITH PASSWORD = '{PASSWORDS['inbound']}' AND LOGIN = true AND "
                f"SUPERUSER = false;",
                "GRANT SELECT ON KEYSPACE feeds TO r_in;", "GRANT MODIFY ON KEYSPACE feeds TO r_in;", ""]
        check("cassandra roles: LOGIN, not SUPERUSER, SELECT and MODIFY on the keyspace only, a quote doubled",
              statements == want, "\n".join(statements))
        check("the roles' statements from a 0600 file", bool(roles) and roles[0].startswith("FILE 600 "), roles)
        calls = [line for line in log.splitlines() if line.startswith("CALL ")]
        check("no service password on a command line or in the output",
              not any(p in c for c in calls for p in ("it's-0ut", PASSWORDS["inbound"]))
              and PASSWORDS["inbound"] not in out.stdout + out.stderr)
        check("no credential file left behind", left == [], left)
        out, _, _ = run(["sh", os.path.join(chart, "files/init/cassandra.sh"), "apply"],
                        dict(env, INBOUND_ROLE="r;DROP"), work)
        check("cassandra.sh refuses a role name it would have to quote", out.returncode != 0, out.stderr)


class FakeSolr(BaseHTTPRequestHandler):
    """A SolrCloud's answers to what solr.py asks, the requests noted; permissions kept as Solr keeps them."""
    requests, permissions = [], []

    def log_message(self, *args):
        pass

    def answer(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        FakeSolr.requests.append(("GET", self.path, self.headers.get("Authorization"), None))
        if self.path.startswith("/solr/admin/info/system"):
            self.answer({"mode": "solrcloud"})
        elif self.path.startswith("/solr/admin/authorization"):
            perms = [dict(p, index=i + 1) for i, p in enumerate(FakeSolr.permissions)]
            self.answer({"authorization": {"permissions": perms}})
        elif "action=LIST" in self.path:
            self.answer({"collections": ["outbound"]})
        else:
            self.answer({})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        FakeSolr.requests.append(("POST", self.path, self.headers.get("Authorization"), body))
        if self.path.startswith("/solr/admin/authorization"):
            command = json.loads(body)
            if "set-permission" in command:
                p = dict(command["set-permission"])
                before = p.pop("before", None)
                FakeSolr.permissions.insert((before or len(FakeSolr.permissions) + 1) - 1, p)
            elif "update-permission" in command:
                p = dict(command["update-permission"])
                FakeSolr.permissions[p.pop("index") - 1] = p
        self.answer({})


def solr(chart):
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(os.path.join(work, "conf"))
        open(os.path.join(work, "conf", "solrconfig.xml"), "w").close()
        server = ThreadingHTTPServer(("127.0.0.1", 0), FakeSolr)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        FakeSolr.permissions[:] = [{"name": "read", "role": ["admin"]}, {"name": "all", "role": ["admin"]}]
        env = {"SOLR_URL": f"http://127.0.0.1:{server.server_port}/solr", "SOLR_COLLECTION": "outbound",
               "CONFIGSET": "cs", "CONFIGSET_DIR": os.path.join(work, "conf"), "SOLR_ADMIN_USERNAME": "admin",
               "SOLR_ADMIN_PASSWORD": PASSWORDS["admin"], "SEARCH_USERNAME": "searcher",
               "SEARCH_PASSWORD": PASSWORDS["search"]}
        try:
            for attempt in (1, 2):
                FakeSolr.requests[:] = []
                out, _, _ = run([sys.executable, os.path.join(chart, "files/init/solr.py"), "apply"], env, work)
                check(f"solr.py apply with search's user succeeds (run {attempt})", out.returncode == 0,
                      out.stderr + out.stdout)
            expected = "Basic " + base64.b64encode(f"admin:{PASSWORDS['admin']}".encode()).decode()
            check("every Solr request authenticates as the admin",
                  bool(FakeSolr.requests) and all(r[2] == expected for r in FakeSolr.requests))
            posted = [json.loads(r[3]) for r in FakeSolr.requests if r[0] == "POST" and "/admin/auth" in r[1]]
            check("search's user set with its password, and a role of its name",
                  {"set-user": {"searcher": PASSWORDS["search"]}} in posted
                  and {"set-user-role": {"searcher": ["searcher"]}} in posted, posted)
            names = [p.get("name") for p in FakeSolr.permissions]
            ours = [p for p in FakeSolr.permissions if str(p.get("name", "")).startswith("newsfeed-search-")]
            check("its permissions first, once each after two runs: /select and /update on the collection only",
                  names[:2] == ["newsfeed-search-update", "newsfeed-search-select"] and len(names) == 4
                  and sorted((p["path"], p["collection"], tuple(p["role"])) for p in ours)
                  == [("/select", "outbound", ("searcher", "admin")), ("/update", "outbound", ("searcher", "admin"))],
                  FakeSolr.permissions)
            check("no password in the output", not re.search("|".join(map(re.escape, PASSWORDS.values())),
                                                               out.stdout + out.stderr))
        finally:
            server.shutdown()


def main(chart):
    kafka(chart)
    cassandra(chart)
    solr(chart)
    failed = results.count(False)
    print(f"schema Job scripts: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
