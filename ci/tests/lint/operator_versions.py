#!/usr/bin/env python3
"""operators/versions.env is the one place the operators' versions are set; every other file that names one agrees.

  - versions.env: plain KEY=value lines (the shell sources it, the kind workflow appends it to $GITHUB_ENV), each
    component's app version and Go module version the same release (a half-done upgrade fails);
  - operators/install.sh, ci/local/control-plane/crds.sh and ci/release/kind-e2e.sh read it and name no version
    themselves; `install.sh --dry-run` installs each pinned chart from its pinned repository, `crds.sh modules`
    lists every pinned module at its pinned version;
  - .github/workflows/kind-e2e.yml reads it, and every `env.<KEY>` it shows is a key of it;
  - operators/README.md's table: each chart's repository, chart version and app version;
  - ci/local/tools.sh builds the local node's Prometheus Operator at kube-prometheus-stack's app version;
  - every version string of a component in the README, the docs, the charts' READMEs and values, the scripts and
    the workflow ("cert-manager v1.21.2", "kube-prometheus-stack 77.0.0", "cass-operator@v1.23.0", ...) is one of
    its pins. A section titled "Newer upstream..." lists releases not used on purpose and is left out; so is the
    CloudNativePG that ci/local/tools.sh builds for the local node (CNPG_VERSION), named in its docs.
Prints one `ok - ` / `FAIL - ` line per check; exits 1 on any failure. `--files` prints the files it reads.
Usage: operator_versions.py [--files] [REPO_ROOT]
"""
import glob
import os
import re
import subprocess
import sys

args = [a for a in sys.argv[1:] if a != "--files"]
ROOT = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "../../.."))
VERSIONS = "operators/versions.env"
INSTALL = "operators/install.sh"
CRDS = "ci/local/control-plane/crds.sh"
KIND_SCRIPT = "ci/release/kind-e2e.sh"
KIND_WORKFLOW = ".github/workflows/kind-e2e.yml"
README = "operators/README.md"
TOOLS = "ci/local/tools.sh"
READERS = [INSTALL, CRDS, KIND_SCRIPT]   # scripts that take every version from versions.env
SCANNED = [README, "README.md", "docs/*.md", "ci/*/README.md", "ci/*/*/README.md", "charts/*/README.md",
           "charts/*/README.md.gotmpl", "charts/*/values.yaml", INSTALL, CRDS, KIND_SCRIPT, KIND_WORKFLOW]

# component: versions.env prefix, and the names a text gives it before a version
COMPONENTS = {
    "cert-manager": ("CERT_MANAGER", ["cert-manager", "cert manager"]),
    "kube-prometheus-stack": ("KUBE_PROMETHEUS_STACK", ["kube-prometheus-stack"]),
    "Prometheus Operator": ("KUBE_PROMETHEUS_STACK", ["prometheus operator", "prometheus-operator"]),
    "CloudNativePG": ("CLOUDNATIVE_PG", ["cloudnative-pg", "cloudnativepg", "cnpg"]),
    "k8ssandra-operator": ("K8SSANDRA_OPERATOR", ["k8ssandra-operator", "k8ssandra operator"]),
    "cass-operator": ("CASS_OPERATOR", ["cass-operator"]),
    "Solr Operator": ("SOLR_OPERATOR", ["solr-operator", "solr operator"]),
    "zookeeper-operator": ("ZOOKEEPER_OPERATOR", ["zookeeper-operator", "zookeeper operator"]),
    "k6-operator": ("K6_OPERATOR", ["k6-operator", "k6 operator"]),
    "Gateway API": ("GATEWAY_API", ["gateway-api", "gateway api"]),
}
# kube-prometheus-stack's chart version is not a version of the Prometheus Operator (nor the other way round)
ONLY = {"kube-prometheus-stack": ["CHART_VERSION"], "Prometheus Operator": ["APP_VERSION", "MODULE_VERSION"]}
VERSION = r"v?(\d+(?:\.\d+){1,2}(?:-[0-9A-Za-z.]+)?)"
LITERAL = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?![.\d])")   # an address like 127.0.0.1 is no version
NEWER_SECTION = re.compile(r"^(#+)\s+Newer upstream", re.I)

results = []


def report(ok, what, details=()):
    results.append(ok)
    print(("ok - " if ok else "FAIL - ") + "operator versions: " + what)
    for d in ([] if ok else details):
        print("    " + d)


def read(rel):
    path = os.path.join(ROOT, rel)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def norm(v):
    return v[1:] if v[:1] == "v" else v


def scanned_files():
    seen = []
    for pattern in SCANNED:
        for f in sorted(glob.glob(os.path.join(ROOT, pattern))):
            rel = os.path.relpath(f, ROOT)
            if rel not in seen:
                seen.append(rel)
    return seen


if "--files" in sys.argv[1:]:
    print("\n".join([VERSIONS, TOOLS] + scanned_files()))
    sys.exit(0)

# ---------------------------------------------------------------- versions.env
pins, bad_lines = {}, []
for n, line in enumerate((read(VERSIONS) or "").splitlines(), 1):
    if not line.strip() or line.startswith("#"):
        continue
    m = re.fullmatch(r"([A-Z][A-Z0-9_]*)=([^\s\"'$`\\#]+)", line)
    if m:
        pins[m.group(1)] = m.group(2)
    else:
        bad_lines.append(f"{VERSIONS}:{n}: not a plain KEY=value line: {line}")
SUFFIXES = ("_CHART_REPO", "_CHART_VERSION", "_APP_VERSION", "_MODULE_VERSION", "_MODULE_SUM", "_CHART", "_MODULE")
prefixes = sorted({k[:-len(s)] for k in pins for s in SUFFIXES if k.endswith(s) and not
                   any(k.endswith(longer) for longer in SUFFIXES if len(longer) > len(s))})
bad_lines += [f"{VERSIONS}: {k} is not <COMPONENT>{'|'.join(SUFFIXES)}" for k in pins if not k.endswith(SUFFIXES)]
half_done = [f"{p}: app {pins[p + '_APP_VERSION']}, module {pins[p + '_MODULE_VERSION']}" for p in prefixes
             if p + "_APP_VERSION" in pins and p + "_MODULE_VERSION" in pins
             and norm(pins[p + "_APP_VERSION"]) != norm(pins[p + "_MODULE_VERSION"])]
missing = [f"{p}: no {p}_{k}" for p in prefixes for k in ("CHART", "CHART_VERSION", "APP_VERSION")
           if p + "_CHART_REPO" in pins and p + "_" + k not in pins]
missing += [f"{p}: no {p}_MODULE_VERSION" for p in prefixes if p + "_MODULE" in pins and p + "_MODULE_VERSION" not in pins]
report(bool(pins) and not (bad_lines or half_done or missing),
       f"{VERSIONS}: {len(pins)} plain KEY=value pins, each component's app and Go module version the same release",
       (bad_lines or ([f"{VERSIONS} missing or empty"] if not pins else [])) + half_done + missing)


def allowed(component):
    prefix = COMPONENTS[component][0]
    keys = ONLY.get(component, ["CHART_VERSION", "APP_VERSION", "MODULE_VERSION"])
    return {norm(pins[f"{prefix}_{k}"]) for k in keys if f"{prefix}_{k}" in pins}


def accepted(component, version, extra=()):
    ok = allowed(component) | set(extra)
    # "cass-operator v1.23" names the minor release of a pin
    return version in ok or (version.count(".") == 1 and any(v.startswith(version + ".") for v in ok))


# ---------------------------------------------------------------- the scripts that read it
for rel in READERS:
    text = read(rel)
    if text is None:
        report(False, f"{rel} exists")
        continue
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    literals = [f"{rel}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1)
                if LITERAL.search(line)]
    sources = re.search(r"^\s*(source|\.)\s+.*/versions\.env\"?\s*$", code, re.M)
    report(bool(sources) and not literals, f"{rel} reads {VERSIONS} and names no version of its own",
           ([] if sources else [f"{rel} does not source {VERSIONS}"]) + literals)


def run(*cmd):
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, PATH="/usr/bin:/bin"))
    return p.returncode, p.stdout, p.stderr


CHARTED = [p for p in prefixes if p + "_CHART_REPO" in pins]
if read(INSTALL) is not None and pins:
    rc, out, err = run("bash", INSTALL, "--dry-run", "--with-k6-operator")
    helm = {}
    for line in out.splitlines():
        w = line.split()
        if w[:3] == ["helm", "upgrade", "--install"] and "--repo" in w and "--version" in w:
            helm[w[4]] = (w[w.index("--repo") + 1], w[w.index("--version") + 1])
    for p in CHARTED:
        want = (pins[p + "_CHART_REPO"], pins[p + "_CHART_VERSION"])
        got = helm.get(pins[p + "_CHART"])
        report(rc == 0 and got == want,
               f"{INSTALL} --dry-run installs chart {pins[p + '_CHART']} {want[1]} from {want[0]}",
               ([f"it installs {got[1]} from {got[0]}" if got else f"no helm upgrade --install of it (exit {rc})"]
                + (err.splitlines()[-3:] if rc else [])) if got != want or rc else [])
    if "SOLR_OPERATOR_APP_VERSION" in pins:
        crd_url = f"/crds/{pins['SOLR_OPERATOR_APP_VERSION']}/"
        report(crd_url in out, f"{INSTALL} --dry-run applies the Solr Operator CRDs of {pins['SOLR_OPERATOR_APP_VERSION']}",
               [line for line in out.splitlines() if "crds" in line])

if read(CRDS) is not None and pins:
    rc, out, err = run("bash", CRDS, "modules")
    got = sorted(tuple(line.split()[:2]) for line in out.splitlines() if line.strip())
    want = sorted((pins[p + "_MODULE"], pins[p + "_MODULE_VERSION"]) for p in prefixes if p + "_MODULE" in pins)
    report(rc == 0 and got == want, f"{CRDS} takes the CRDs of the {len(want)} pinned Go modules (crds.sh modules)",
           [f"pinned not taken: {m} {v}" for m, v in sorted(set(want) - set(got))]
           + [f"taken, not pinned: {m} {v}" for m, v in sorted(set(got) - set(want))] + err.splitlines()[-3:])

text = read(KIND_SCRIPT)
if text is not None and pins:
    block = re.search(r"OPERATOR_RELEASES=\(([^)]*)\)", text)
    listed = dict(re.findall(r"([a-z0-9-]+)=([A-Z0-9_]+)", block.group(1))) if block else {}
    problems = [] if block else [f"{KIND_SCRIPT}: no OPERATOR_RELEASES=(...)"]
    default = re.search(r"^\s*components=\(([^)]+)\)", read(INSTALL) or "", re.M)   # the default list
    for release in (default.group(1).split() if default else []):
        if release not in listed:
            problems.append(f"{KIND_SCRIPT}: the `pinned` step does not check {release}, which {INSTALL} installs")
    for release, p in listed.items():
        problems += [f"{KIND_SCRIPT}: {release}={p}, and {VERSIONS} has no {p}_{k}"
                     for k in ("CHART", "CHART_VERSION", "APP_VERSION") if f"{p}_{k}" not in pins]
    report(not problems, f"{KIND_SCRIPT}: the `pinned` step checks every release {INSTALL} installs by default",
           problems)

text = read(KIND_WORKFLOW)
if text is None:
    report(False, f"{KIND_WORKFLOW} exists")
else:
    shown = sorted(set(re.findall(r"\$\{\{\s*env\.([A-Z0-9_]+)\s*\}\}", text)))
    unknown = [k for k in shown if re.search(r"_(CHART|APP|MODULE)", k) and k not in pins]
    reads = re.search(r"operators/versions\.env\s*>>\s*\"?\$GITHUB_ENV", text)
    report(bool(reads) and not unknown,
           f"{KIND_WORKFLOW} reads {VERSIONS} into the job's environment; the {len(shown)} env pins it shows exist",
           ([] if reads else [f"no step appends {VERSIONS} to $GITHUB_ENV"])
           + [f"env.{k} is not a key of {VERSIONS}" for k in unknown])

# ---------------------------------------------------------------- operators/README.md's table


def component_of(cell):
    low = cell.lower()
    hits = [(low.find(a), c) for c, (_, aliases) in COMPONENTS.items() for a in aliases if a in low]
    return min(hits)[1] if hits else None


text = read(README)
if text is None:
    report(False, f"{README} exists")
else:
    rows, header = {}, None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None if rows else header
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if "chart version" in cells and "app version" in cells:
            header = cells
        elif header and not set(cells[0]) <= set("-: "):
            rows[component_of(cells[0])] = dict(zip(header, cells))
    problems = [] if header or rows else [f"{README}: no table with columns 'chart version' and 'app version'"]
    for p in CHARTED:
        component = next((c for c, (prefix, _) in COMPONENTS.items() if prefix == p), None)
        row = rows.get(component)
        if not row:
            problems.append(f"{README}: no row for {component} ({p})")
            continue
        if norm(row.get("chart version", "")) != norm(pins[p + "_CHART_VERSION"]):
            problems.append(f"{component}: chart version {row.get('chart version')}, pinned {pins[p + '_CHART_VERSION']}")
        first = re.search(VERSION, row.get("app version", ""))
        if not first or first.group(1) != norm(pins[p + "_APP_VERSION"]):
            problems.append(f"{component}: app version {row.get('app version')}, pinned {pins[p + '_APP_VERSION']}")
        repo = row.get("chart (repository)", "")
        if pins[p + "_CHART_REPO"] not in repo or f"`{pins[p + '_CHART']}`" not in repo:
            problems.append(f"{component}: chart {repo}, pinned `{pins[p + '_CHART']}` ({pins[p + '_CHART_REPO']})")
    report(not problems, f"{README} table: repository, chart and app version of the {len(CHARTED)} charts", problems)

# ---------------------------------------------------------------- the local node's builds (ci/local/tools.sh)
tools = read(TOOLS) or ""
local = dict(re.findall(r"^(PROMETHEUS_OPERATOR_VERSION|CNPG_VERSION)=(\S+)", tools, re.M))
if "KUBE_PROMETHEUS_STACK_APP_VERSION" in pins:
    want = pins["KUBE_PROMETHEUS_STACK_APP_VERSION"]
    report(local.get("PROMETHEUS_OPERATOR_VERSION") == want,
           f"{TOOLS} builds the local node's Prometheus Operator at kube-prometheus-stack's app version {want}",
           [f"PROMETHEUS_OPERATOR_VERSION={local.get('PROMETHEUS_OPERATOR_VERSION', '(none)')}"])
# the CloudNativePG of the local node may lag the pin (its docs say why): its version is a known one, not a drift
LOCAL_EXTRA = {"CloudNativePG": [norm(local["CNPG_VERSION"])] if "CNPG_VERSION" in local else []}

# ---------------------------------------------------------------- every version a text gives a component
MENTION = {c: re.compile(r"(?<![\w.-])(?:" + "|".join(re.escape(a).replace(r"\ ", r"\s+") for a in aliases)
                         + r")(?:[ \t]+|@|:|=|-)" + VERSION + r"(?![\w.]*\d)", re.I)
           for c, (_, aliases) in COMPONENTS.items()}


def mentions(text):
    skip_level = None
    for n, line in enumerate(text.splitlines(), 1):
        heading = re.match(r"^(#+)\s", line)
        if skip_level and heading and len(heading.group(1)) <= skip_level:
            skip_level = None
        m = NEWER_SECTION.match(line)
        if m:
            skip_level = len(m.group(1))
        if skip_level:
            continue
        for component, regex in MENTION.items():
            for hit in regex.finditer(line):
                yield n, component, hit.group(1), hit.group(0)


if pins:
    for rel in scanned_files():
        found = list(mentions(read(rel)))
        if not found:
            continue
        wrong = [f"{rel}:{n}: '{text}': {component} is pinned at {' / '.join(sorted(allowed(component)))}"
                 for n, component, version, text in found
                 if not accepted(component, version, LOCAL_EXTRA.get(component, []))]
        report(not wrong, f"{rel}: every operator version it names is pinned ({len(found)} named)", wrong)

sys.exit(0 if results and all(results) else 1)
