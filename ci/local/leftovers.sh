#!/usr/bin/env bash
# What is still running for one run directory: every process whose command line or working directory names
# that directory, and every port of its port offset that something listens on. Read-only: it kills nothing.
# Usage: ci/local/leftovers.sh RUN_DIR [OFFSET...]   prints `pid PID CMDLINE` and `port PORT` lines;
#        exit 0 when nothing is left, 1 when something is. Without OFFSET it reads NEWSFEED_PORT_OFFSET (0).
# The ports are those of docs/contracts.md and the local tools (stores, services with up to 9 instances each,
# the stores' exporters, gateway, Prometheus, Jaeger, control plane, the Kubernetes node's components), each shifted by the offset.
set -uo pipefail

run=$(realpath -m "${1:?usage: ci/local/leftovers.sh RUN_DIR [OFFSET...]}")
shift
offsets=("$@"); [ ${#offsets[@]} -gt 0 ] || offsets=("${NEWSFEED_PORT_OFFSET:-0}")

run_ports() {
  local o=$1 base i
  echo $((15432 + o)) $((16379 + o)) $((19092 + o)) $((19093 + o)) $((19042 + o)) $((17000 + o)) \
    $((17199 + o)) $((18983 + o)) $((18080 + o)) $((19090 + o)) $((14318 + o)) $((16686 + o)) $((16685 + o)) \
    $((12379 + o)) $((12380 + o)) $((16443 + o)) $((16257 + o)) \
    $((16250 + o)) $((16248 + o)) $((16259 + o)) $((16256 + o)) $((16249 + o)) $((19121 + o)) $((15556 + o)) \
    $((19187 + o)) $((19103 + o)) $((19308 + o))
  for base in 18081 18082 18083 18084 18085; do
    for ((i = 0; i < 9; i++)); do echo $((base + 10 * i + o)); done
  done
}

# this script and its callers (make, the suite) may name the run dir on their own command lines
ancestors=" "
p=$$
while [ -n "$p" ] && [ "$p" != 0 ]; do
  ancestors+="$p "
  p=$(awk '/^PPid:/ {print $2}' "/proc/$p/status" 2>/dev/null)
done

names_run() { # names_run ARG: the run dir itself, a path below it, or after `=`, `:`, `,` or a space
  case $1 in
    "$run" | "$run"/* | *[=:,\ ]"$run" | *[=:,\ ]"$run"/*) return 0 ;;
  esac
  return 1
}

left=0
for d in /proc/[0-9]*; do
  pid=${d#/proc/}
  [[ $ancestors == *" $pid "* ]] && continue
  hit=false
  cwd=$(readlink "$d/cwd" 2>/dev/null) && names_run "${cwd% (deleted)}" && hit=true
  if ! $hit; then
    # a process that ends while it is read is no longer left
    { while IFS= read -r -d '' arg; do
        if names_run "$arg"; then hit=true; break; fi
      done < "$d/cmdline"; } 2>/dev/null
  fi
  if $hit; then
    echo "pid $pid $(tr '\0' ' ' < "$d/cmdline" 2>/dev/null | cut -c1-160)"
    left=1
  fi
done

listening=$(ss -Hltn 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u)
ports=$(for o in "${offsets[@]}"; do run_ports "$o"; done | tr ' ' '\n' | sort -un)
for port in $ports; do
  if grep -qx "$port" <<< "$listening"; then echo "port $port"; left=1; fi
done
exit $left
