#!/usr/bin/env python3
"""Summarises async-profiler collapsed stacks (with thread names, ci/bench/experiment/profiler.sh) of one JVM:
CPU share by thread pool, by the library of the innermost Java frame, and the hottest leaf frames.

Usage: profile_summary.py FILE.collapsed [--top N]   (Markdown on stdout)
"""
import argparse
import re
from collections import Counter

# library of a frame, by package prefix; kernel frames end in _[k]; native/JVM frames have no dots
LIBRARIES = [("netty", "io/netty/"), ("netty", "io.netty."), ("vert.x", "io/vertx/"), ("vert.x", "io.vertx."),
             ("cassandra driver", "com/datastax/"), ("cassandra driver", "com.datastax."),
             ("kafka client", "org/apache/kafka/"), ("kafka client", "org.apache.kafka."),
             ("jackson", "com/fasterxml/"), ("jackson", "com.fasterxml."),
             ("micrometer", "io/micrometer/"), ("micrometer", "io.micrometer."),
             ("logback/slf4j", "ch/qos/logback"), ("logback/slf4j", "ch.qos.logback"), ("logback/slf4j", "org.slf4j"),
             ("newsfeed code", "newsfeed/"), ("newsfeed code", "newsfeed."),
             ("JDK", "java/"), ("JDK", "java."), ("JDK", "jdk/"), ("JDK", "jdk."), ("JDK", "sun/"), ("JDK", "sun.")]


def thread_pool(frame):
    name = re.sub(r"^\[|\s*tid=\d+\]$|\]$", "", frame)
    return re.sub(r"[-# ]?\d+$", "", name).strip() or "?"


def library(stack):
    """Library of the innermost Java frame; kernel and JVM-internal time separately."""
    leaf = stack[-1]
    if leaf.endswith("_[k]"):
        return "kernel (syscalls, network)"
    for frame in reversed(stack):
        for lib, prefix in LIBRARIES:
            if frame.startswith(prefix):
                return lib
        if "." in frame or "/" in frame:
            return "other Java"
    return "JVM (GC, JIT, runtime)"


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("file")
    p.add_argument("--top", type=int, default=12)
    a = p.parse_args()
    pools, libs, leaves = Counter(), Counter(), Counter()
    total = 0
    with open(a.file, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack_text, _, count = line.rstrip("\n").rpartition(" ")
            if not stack_text or not count.isdigit():
                continue
            n = int(count)
            frames = stack_text.split(";")
            total += n
            pools[thread_pool(frames[0])] += n
            libs[library(frames[1:] or frames)] += n
            leaves[frames[-1]] += n
    if not total:
        raise SystemExit(f"{a.file}: no samples")

    def table(title, counter, top):
        print(f"\n| {title} | share |\n|---|---:|")
        for k, v in counter.most_common(top):
            print(f"| `{k}` | {100 * v / total:.1f}% |")

    print(f"{total} samples")
    table("thread pool", pools, 8)
    table("library of the innermost Java frame", libs, 12)
    table("hottest leaf frame", leaves, a.top)


if __name__ == "__main__":
    main()
