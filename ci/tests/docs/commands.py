#!/usr/bin/env python3
"""Every shell command the README and the docs tell a user to run: it exists, and a suite runs it or
commands.tsv says why none does.

Commands are the lines of ```bash/sh/shell/console blocks (continuations joined, comments and leading
VAR=value assignments dropped) and inline `make ...` spans. For each one:
  - `make T...`: every target T is a target of the Makefile;
  - every repository path it names (ci/..., charts/..., values/..., k6/..., operators/...) exists;
  - it starts with a key of commands.tsv (the longest one wins): `KEY<TAB>suite:NAME` when ci/tests/NAME.sh (or
    a file under ci/tests/NAME/) runs it - the key itself, or for `make T` the target T as a word, must appear
    there, unless the key is that suite's own script - or `KEY<TAB>not run<TAB>REASON`.
A key no documented command uses any more fails too, so the list stays the list of what the docs say.
Prints one `ok - ` / `FAIL - ` line per command and per stale key; exits 1 on any failure.
Usage: commands.py [REPO_ROOT]
"""
import glob
import os
import re
import shlex
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../.."))
HERE = os.path.join(ROOT, "ci/tests/docs")
DOCS = ["README.md", "docs/*.md", "*/README.md", "ci/*/README.md", "ci/*/*/README.md", "charts/*/README.md"]
FENCE = re.compile(r"^```(bash|sh|shell|console)\s*$")
INLINE_MAKE = re.compile(r"`((?:[A-Z_]+=\S+ )*make [^`]*)`")
ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=(\"[^\"]*\"|'[^']*'|\$\([^)]*\)|\S*)\s+")
REPO_PATH = re.compile(r"^(ci|charts|values|k6|operators|services|docs)/[^\s'\"]*$")


def doc_files(patterns=None):
    """The repository-relative paths the glob patterns (default DOCS) match, each once, in pattern order."""
    seen = []
    for pattern in patterns or DOCS:
        for f in sorted(glob.glob(os.path.join(ROOT, pattern))):
            rel = os.path.relpath(f, ROOT)
            if rel not in seen:
                seen.append(rel)
    return seen


def strip_comment(line):
    """The line without a trailing `# comment` (a # that starts a word outside quotes)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def normalize(cmd):
    cmd = cmd.strip()
    if cmd.startswith("$ "):
        cmd = cmd[2:]
    while ASSIGNMENT.match(cmd):
        cmd = ASSIGNMENT.sub("", cmd, count=1)
    if cmd.startswith("bash "):
        cmd = cmd[5:]
    # the pinned tools by name: ~/.cache/newsfeed/bin/promtool is the promtool the suites run
    cmd = re.sub(r"^~/\.cache/newsfeed/bin/", "", cmd)
    return cmd.strip()


def commands_of(rel):
    """(line number, command) for every command the file tells a user to run."""
    out, block, pending = [], False, None
    with open(os.path.join(ROOT, rel), encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    for n, line in enumerate(lines, 1):
        if not block:
            if FENCE.match(line.strip()):
                block = True
                continue
            for m in INLINE_MAKE.finditer(line):
                out.append((n, normalize(m.group(1))))
            continue
        if line.strip().startswith("```"):
            block = False
            continue
        text = strip_comment(line)
        if pending is not None:
            pending = (pending[0], pending[1] + " " + text.strip().rstrip("\\").strip())
        elif text.strip():
            pending = (n, text.strip().rstrip("\\").strip())
        if pending is not None and not text.endswith("\\"):
            out.append((pending[0], normalize(pending[1])))
            pending = None
    return [(n, c) for n, c in out if c]


def makefile_targets():
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as fh:
        return set(re.findall(r"^([a-z][a-z0-9-]*):", fh.read(), re.M))


def registry():
    entries = {}
    with open(os.path.join(HERE, "commands.tsv"), encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            entries[parts[0]] = (n, parts[1:] if len(parts) > 1 else [])
    return entries


def words(cmd):
    try:
        return shlex.split(cmd, comments=False)
    except ValueError:
        return cmd.split()


def suite_text(name):
    files = [os.path.join(ROOT, f"ci/tests/{name}.sh")]
    files += glob.glob(os.path.join(ROOT, f"ci/tests/{name}/**/*"), recursive=True)
    text = ""
    for f in files:
        if os.path.isfile(f):
            with open(f, encoding="utf-8", errors="replace") as fh:
                text += fh.read()
    return text if os.path.isfile(files[0]) else None


def problems(cmd, targets, entries):
    found, w = [], words(cmd)
    if w and w[0] == "make":
        for t in w[1:]:
            if "=" not in t and not t.startswith("-") and t not in targets:
                found.append(f"make target '{t}' does not exist")
    for t in w:
        if REPO_PATH.match(t) and "<" not in t and not glob.glob(os.path.join(ROOT, t)):
            found.append(f"'{t}' does not exist")
    keys = [k for k in entries if cmd == k or cmd.startswith(k if not k[-1].isalnum() else k + " ")]
    if not keys:
        found.append("neither run by a suite nor listed in ci/tests/docs/commands.tsv")
        return found, None
    key = max(keys, key=len)
    how = entries[key][1]
    if how and how[0].startswith("suite:"):
        text = suite_text(how[0][6:])
        if text is None:
            found.append(f"commands.tsv names {how[0]}, which does not exist")
        elif key != f"ci/tests/{how[0][6:]}.sh" and key not in text and not (key.startswith("make ") and re.search(rf"\b{re.escape(key[5:])}\b", text)):
            found.append(f"commands.tsv says {how[0]} runs '{key}', but it does not appear there")
    elif not (how and how[0] == "not run" and len(how) > 1 and how[1].strip()):
        found.append(f"commands.tsv line {entries[key][0]}: 'suite:NAME', or 'not run' and a reason")
    return found, key


def main():
    targets, entries, used, failed = makefile_targets(), registry(), set(), 0
    for rel in doc_files():
        for n, cmd in commands_of(rel):
            found, key = problems(cmd, targets, entries)
            used.add(key)
            if found:
                failed += 1
                print(f"FAIL - {rel}:{n}: {cmd}: " + "; ".join(found))
            else:
                print(f"ok - {rel}:{n}: {cmd}")
    for key, (n, _) in entries.items():
        if key not in used:
            failed += 1
            print(f"FAIL - commands.tsv line {n}: no documented command starts with '{key}' any more")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
