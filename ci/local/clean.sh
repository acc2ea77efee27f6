#!/usr/bin/env bash
# `make clean`: stops everything the project may have started for one run directory, then removes it.
# Stopped, each even when stopping another failed: the gateway, every service instance (also extra instances an
# experiment left: whatever has a pid file), Prometheus, Jaeger, the stores, the control plane and the Kubernetes node;
# in the run directory and in every run directory below it (a `make test` left in .run/test, for example).
# Then ci/local/leftovers.sh must find no process naming the run directory and no port of its offset listening: only
# then is the directory removed. Otherwise it says which pids and ports are left, removes nothing, exits 1.
# Nothing is killed by name: only processes the run directories recorded.
# Usage: ci/local/clean.sh   (NEWSFEED_RUN, default <repo>/.run; NEWSFEED_PORT_OFFSET, default 0)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
RUN=$(realpath -m "${NEWSFEED_RUN:-$PWD/.run}")
OFFSET=${NEWSFEED_PORT_OFFSET:-0}
log() { echo "[clean $(date +%T)] $*"; }

# The run directories at or below RUN that recorded something: the parents of their parts' pid files.
run_dirs() {
  find "$RUN" -maxdepth 6 -type f -name '*.pid' 2>/dev/null | sed -nE \
    -e 's#/(stack|services)/pids/[^/]+\.pid$##p' -e 's#/prometheus/prometheus\.pid$##p' -e 's#/jaeger/jaeger\.pid$##p' \
    -e 's#/gateway/nginx\.pid$##p' -e 's#/(control-plane|cluster)/[^/]+\.pid$##p' |
    grep -v '/cluster$' | sort -u   # the node's own control plane (cluster/control-plane) is stopped by the node
}

# The port offset a run directory's stack was set up with (the stack refuses to stop with another one).
offset_of() { if [ -f "$1/stack/port-offset" ]; then cat "$1/stack/port-offset"; else echo "$OFFSET"; fi; }

failed=()
step() { # step WHAT CMD...: one stop; a failure is remembered, the next steps still run
  local what=$1; shift
  "$@" || { log "$what failed"; failed+=("$what"); }
}

stop_run_dir() {
  local dir=$1 o; o=$(offset_of "$1")
  log "stopping what $dir recorded (port offset $o)"
  export NEWSFEED_RUN=$dir NEWSFEED_PORT_OFFSET=$o
  [ -f "$dir/gateway/nginx.pid" ] && step "gateway ($dir)" bash ci/local/gateway.sh stop
  [ -d "$dir/services/pids" ] && step "services ($dir)" bash ci/local/services.sh stop
  [ -f "$dir/prometheus/prometheus.pid" ] && step "prometheus ($dir)" bash ci/local/prometheus.sh stop
  [ -f "$dir/jaeger/jaeger.pid" ] && step "jaeger ($dir)" bash ci/local/jaeger.sh stop
  [ -d "$dir/stack/pids" ] && step "stores ($dir)" bash ci/local/stack.sh down
  if [ -d "$dir/cluster" ] && [ -f ci/local/cluster.sh ]; then step "kubernetes node ($dir)" bash ci/local/cluster.sh down; fi
  [ -d "$dir/control-plane" ] && step "control plane ($dir)" bash ci/local/control-plane.sh stop
  return 0
}

mapfile -t dirs < <(run_dirs)
offsets=("$OFFSET")
if [ ${#dirs[@]} -eq 0 ]; then
  log "nothing to stop in $RUN"
else
  # deepest first: a run directory below another is stopped before its parent's parts
  for d in $(printf '%s\n' "${dirs[@]}" | awk '{print length, $0}' | sort -rn | cut -d' ' -f2-); do
    offsets+=("$(offset_of "$d")")
    stop_run_dir "$d"
  done
fi

mapfile -t offsets < <(printf '%s\n' "${offsets[@]}" | sort -un)
if left=$(bash ci/local/leftovers.sh "$RUN" "${offsets[@]}"); then
  if [ -e "$RUN" ]; then rm -rf "$RUN"; log "removed $RUN"; fi
  [ ${#failed[@]} -eq 0 ] || log "(these stops reported errors, yet nothing is left: ${failed[*]})"
  exit 0
fi
log "NOT removing $RUN: still running (port offsets ${offsets[*]}):"
echo "$left" | sed 's/^/  /'
[ ${#failed[@]} -eq 0 ] || log "failed stops: ${failed[*]}"
exit 1
