#!/usr/bin/env python3
"""Every relative link of the README and the docs resolves: the file it names exists, and an #anchor into a
Markdown file is one of that file's headings (as GitHub makes their anchors). Links inside code are left out.
Prints one `FAIL - ` line per file with a broken link; exits 1 if there is one.
Usage: links.py [REPO_ROOT]
"""
import os
import re
import sys
import unicodedata

from commands import doc_files  # the same glob-and-dedupe of doc files as the command check, over this check's DOCS

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../.."))
DOCS = ["README.md", "docs/*.md", "docs/*/*.md", "*/README.md", "*/*/README.md", "*/*/*/README.md"]
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`]*`")


def slug(heading):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())   # a link in a heading counts by its text
    text = text.lower()
    out = []
    for c in text:
        if c in " -":
            out.append("-")
        elif c == "_" or c.isalnum() or unicodedata.category(c).startswith("M"):
            out.append(c)
    return "".join(out)


def anchors(path, cache={}):
    if path not in cache:
        seen, found, block = {}, set(), False
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if FENCE.match(line):
                    block = not block
                    continue
                m = None if block else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m:
                    s = slug(m.group(1))
                    n = seen.get(s, 0)
                    seen[s] = n + 1
                    found.add(s if n == 0 else f"{s}-{n}")
                for a in re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line):
                    found.add(a)
        cache[path] = found
    return cache[path]


def links_of(path):
    """(line number, target) of every link outside code."""
    out, block = [], False
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if FENCE.match(line):
                block = not block
                continue
            if block:
                continue
            for m in LINK.finditer(INLINE_CODE.sub("", line)):
                out.append((n, m.group(1) or m.group(2)))
    return out


def problems(rel):
    found, here = [], os.path.join(ROOT, rel)
    for n, target in links_of(here):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):   # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(here), path)) if path else here
        if not os.path.exists(dest):
            found.append(f"{rel}:{n}: {target}: no such file")
        elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
            found.append(f"{rel}:{n}: {target}: no heading #{anchor} in {os.path.relpath(dest, ROOT)}")
    return found


def main():
    files = doc_files(DOCS)
    failed = 0
    for rel in files:
        found = problems(rel)
        if found:
            failed += 1
            print(f"FAIL - {rel}: " + "; ".join(found))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
