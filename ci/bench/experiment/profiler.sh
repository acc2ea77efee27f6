#!/usr/bin/env bash
# CPU profiling of a running service JVM with async-profiler (the pinned Maven Central artifact, whose jar
# carries the linux-x64 native library), attached through the JDK's own `jcmd JVMTI.agent_load`, so only the
# load window is profiled (not the JVM's start).
# Usage: ci/bench/experiment/profiler.sh start PID        start sampling CPU (with thread names)
#        ci/bench/experiment/profiler.sh stop PID FILE    stop and write collapsed stacks to FILE
#        ci/bench/experiment/profiler.sh lib              print the native library's path (fetched on first use)
# PROFILER_EVENT (default cpu: perf_events, falling back to a CPU timer), PROFILER_INTERVAL (default 10ms).
set -euo pipefail
VERSION=4.2
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/tools/async-profiler-$VERSION
LIB=$CACHE/linux-x64/libasyncProfiler.so

lib() {
  [ "$(uname -m)" = x86_64 ] || { echo "profiler.sh: only linux-x64 is wired up" >&2; exit 1; }
  if [ ! -f "$LIB" ]; then
    mkdir -p "$CACHE"
    mvn -B -q dependency:copy -Dartifact="tools.profiler:async-profiler:$VERSION:jar" -DoutputDirectory="$CACHE" >&2
    (cd "$CACHE" && unzip -q -o "async-profiler-$VERSION.jar" 'linux-x64/*')
  fi
  echo "$LIB"
}

case ${1:-} in
  lib) lib ;;
  # jcmd splits an unquoted argument at '=': the agent's options go in double quotes of their own
  start) jcmd "${2:?pid}" JVMTI.agent_load "$(lib)" "\"start,event=${PROFILER_EVENT:-cpu},interval=${PROFILER_INTERVAL:-10ms},threads\"" ;;
  stop) jcmd "${2:?pid}" JVMTI.agent_load "$(lib)" "\"stop,collapsed,file=${3:?file}\"" ;;
  *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
