#!/usr/bin/env python3
"""No `... | grep -q` in the project's shell: grep -q exits at its first match and closes the pipe, so a writer with
more to say (curl, kubectl, a script's log) dies of SIGPIPE, and under `set -o pipefail` the pipeline fails although
the line was there, more often the larger the output. Write `| grep PATTERN > /dev/null` (grep reads to the end), or
`grep -q PATTERN <<< "$text"`.

Usage: quiet_grep.py [FILE...]   (default: every tracked *.sh, .ci/run and Makefile); prints one line per finding.
"""
import re
import subprocess
import sys

# a single `|` (not `||`), optional line break after it, then grep with q among its first short options
PIPED_QUIET_GREP = re.compile(r"(?<!\|)\|(?!\|)[ \t]*(?:\\?\n)?[ \t]*grep[ \t]+-[A-Za-z]*q[A-Za-z]*\b")


def findings(path):
    text = open(path, encoding="utf-8").read()
    lines = text.splitlines()
    for match in PIPED_QUIET_GREP.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        if lines[line - 1].lstrip().startswith("#"):
            continue  # a comment may name the pattern it warns of
        yield f"{path}:{line}: a pipe into grep -q (write: | grep ... > /dev/null)"


def main(paths):
    if not paths:
        paths = subprocess.run(["git", "ls-files", "--", "*.sh", ".ci/run", "Makefile"], check=True,
                               capture_output=True, text=True).stdout.split()
    found = [f for p in paths for f in findings(p)]
    print("\n".join(found) if found else f"ok: {len(paths)} files, no pipe into grep -q")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
