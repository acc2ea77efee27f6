#!/usr/bin/env bash
# The machine's limit for fan-out rows: inbound rows per second the stack's Cassandra takes through fan-out's own
# write path (services/inbound RowWriteLimit: FanoutProcessor's bounded, batched inserts from one JVM), with no
# Kafka, social-graph or feed cache in the way, for each setting of writes in flight and rows per write request.
# Usage: ci/bench/experiment/row_limit.sh DIR       (the benchmark's `rows` step runs it)
# Environment: NEWSFEED_STACK_ENV (the stores, required), ROW_LIMIT_ROWS (rows per measured fan-out, 400000),
#   ROW_LIMIT_SETTINGS ("256:10 1024:10 256:1": WRITES:BATCH_ROWS, the service's defaults first; the
#   driver refuses more than 1024 requests in flight on its one connection, so the writer fails above that;
#   a request holds at most 4 KiB of rows: 12 of the writer's post, which is of k6/fanout.js's size),
#   CPU_DIRS (run dirs whose processes are this run's, for cpu_split.py; default the stack's).
# Prints a line per setting: writes, rows per request, rows, seconds, rows/s, the CPU split of the measured
# fan-out as JSON (the writer's JVM is "row writer"); DIR gets the writer's output and the CPU snapshots.
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=${1:?usage: row_limit.sh DIR}
: "${NEWSFEED_STACK_ENV:?NEWSFEED_STACK_ENV must name the stack.env of the stores}"
rows=${ROW_LIMIT_ROWS:-400000}
read -ra settings <<< "${ROW_LIMIT_SETTINGS:-256:10 1024:10 256:1}"
read -ra cpu_dirs <<< "${CPU_DIRS:-$(dirname "$(realpath "$NEWSFEED_STACK_ENV")")}"
mkdir -p "$dir"

# inbound's test classes (the writer) and their classpath, built from the working tree
# (the dependency plugin's version as ci/local/stack/fetch.sh pins it; Maven's default one is not cached)
mvn -q -B -f services/pom.xml -pl inbound -am test-compile \
  org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$dir/classpath.txt" > "$dir/build.log" 2>&1 || { cat "$dir/build.log" >&2; exit 1; }
cp="services/inbound/target/test-classes:services/inbound/target/classes:services/common/target/test-classes"
cp="$cp:services/common/target/classes:$(cat "$dir/classpath.txt")"

# each measured fan-out's CPU split starts at the writer's `measure` line and ends at its `result` line
split() {
  local kind writes batch rest n seconds per_s
  while read -r kind writes batch rest; do
    local at=$dir/cpu-$writes-$batch
    case $kind in
      measure) python3 ci/bench/experiment/cpu_split.py snapshot "$at-before.json" "${cpu_dirs[@]}" ;;
      result)
        python3 ci/bench/experiment/cpu_split.py snapshot "$at-after.json" "${cpu_dirs[@]}"
        read -r n seconds per_s <<< "$rest"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$writes" "$batch" "$n" "$seconds" "$per_s" \
          "$(python3 ci/bench/experiment/cpu_split.py diff "$at-before.json" "$at-after.json")" ;;
    esac
  done
}
# a fan-out that did not write every row fails the writer, and so this script
if ! java -Xms256m -Xmx1g -XX:+UseG1GC -cp "$cp" newsfeed.inbound.RowWriteLimit "$rows" "${settings[@]}" \
    2> "$dir/writer.log" | tee "$dir/writer.out" | split; then
  tail -n 20 "$dir/writer.log" >&2
  exit 1
fi
