"""OpenAPI fuzzing of the running API with Schemathesis: generated valid and invalid requests for every operation
of docs/openapi.yaml; no answer may be a 5xx, and every answer must conform to the spec (content type, body).

Usage: fuzz.py SPEC BASE_URL OUT_DIR   (BASE_URL: the local gateway, which serves the whole API on one port)
Environment: FUZZ_MAX_EXAMPLES (per operation and phase, default 30), FUZZ_MAX_TIME (seconds, default 100),
FUZZ_SEED (default 1, so a failure reproduces), NEWSFEED_CACHE (default ~/.cache/newsfeed: the venv lives in
venv-schemathesis there, made once and reused).
Prints per operation `ok/FAIL - fuzz <operation>: no 5xx` and `... conforms to the spec`; exit 1 on a FAIL.
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

SCHEMATHESIS = "4.32.5"          # pinned: the CLI, its checks and its report format are what this script reads
CHECKS = {
    # the check families judged, each with the Schemathesis failure codes that belong to it (`st explain CODE`)
    "no 5xx": {"ST101", "ST102"},
    "conforms to the spec": {"ST104", "ST105", "ST106", "ST108", "ST109", "ST110"},
}
ST_CHECKS = "not_a_server_error,content_type_conformance,response_schema_conformance"


def venv():
    """The venv with the pinned Schemathesis; created on first use, reinstalled when the pin changes."""
    cache = os.environ.get("NEWSFEED_CACHE", os.path.expanduser("~/.cache/newsfeed"))
    home = os.path.join(cache, "venv-schemathesis")
    st = os.path.join(home, "bin", "st")
    stamp = os.path.join(home, ".version")
    if not (os.path.exists(st) and os.path.exists(stamp) and open(stamp).read().strip() == SCHEMATHESIS):
        print(f"# installing schemathesis {SCHEMATHESIS} into {home}", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", home], check=True)
        subprocess.run([os.path.join(home, "bin", "pip"), "install", "-q", "--disable-pip-version-check",
                        f"schemathesis=={SCHEMATHESIS}"], check=True)
        with open(stamp, "w") as f:
            f.write(SCHEMATHESIS + "\n")
    return st


def main():
    spec, base, out = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
    failed = 0

    def record(name, ok, detail=""):
        nonlocal failed
        failed += 0 if ok else 1
        print(f"{'ok' if ok else 'FAIL'} - fuzz {name}" + (f" ({detail})" if detail else ""), flush=True)

    if not os.path.exists(spec):
        record("the OpenAPI spec exists", False, f"{spec} is missing")
        sys.exit(1)
    try:
        st = venv()
    except subprocess.CalledProcessError as e:
        record(f"schemathesis {SCHEMATHESIS} installs", False, str(e))
        sys.exit(1)
    junit = os.path.join(out, "schemathesis-junit.xml")
    if os.path.exists(junit):
        os.remove(junit)
    cmd = [st, "run", spec, "--url", base, "--checks", ST_CHECKS,
           "--max-examples", os.environ.get("FUZZ_MAX_EXAMPLES", "30"),
           "--max-time", os.environ.get("FUZZ_MAX_TIME", "100"),
           "--seed", os.environ.get("FUZZ_SEED", "1"),
           # one worker: CPython 3.11 keeps the AST builder's recursion depth per interpreter, not per thread, so
           # Hypothesis parsing lambda sources in two threads at once fails the run now and then with
           # "SystemError: AST constructor recursion depth mismatch" (python/cpython#106905)
           "--phases", "examples,coverage,fuzzing", "--workers", "1", "--request-timeout", "10",
           "--report", "junit", "--report-junit-path", junit, "--report-dir", out,
           "--suppress-health-check", "all", "--generation-database", "none", "--no-color"]
    log = os.path.join(out, "schemathesis.log")
    with open(log, "w") as f:
        # cwd: whatever the tool leaves behind stays in the run dir, not in the repository
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=out, timeout=600).returncode
    print(f"# schemathesis exit {rc}; output in {log}", flush=True)
    if not os.path.exists(junit):
        record("schemathesis produced its report", False, f"exit {rc}, see {log}")
        sys.exit(1)
    cases = ET.parse(junit).getroot().iter("testcase")
    n = 0
    for tc in cases:
        n += 1
        problems = list(tc.findall("failure")) + list(tc.findall("error"))
        codes = {p.get("message", "") for p in problems}
        errors = tc.findall("error")
        for check, family in CHECKS.items():
            hit = sorted(codes & family)
            # an error (no answer, a crash of the run) fails both: nothing was judged
            ok = not hit and not errors
            first = next((p.text or "" for p in problems if p.get("message") in family or p.tag == "error"), "")
            record(f"{tc.get('name')}: {check}", ok,
                   "" if ok else f"{', '.join(hit) or 'error'}: {' '.join(first.split())[:300]}")
    if n == 0:
        record("schemathesis tested at least one operation", False, f"no operation in {junit}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
