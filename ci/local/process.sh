# Process helpers sourced by the local runtime's scripts (stack, services, control plane, node, Prometheus, Jaeger)
# and their tests: a pid file holds "PID STARTTIME", so a stop never signals a recycled PID.
# shellcheck shell=bash

# /proc/PID/stat after the "(comm)" field, which may contain spaces: "STATE PPID ... STARTTIME ..."
proc_stat_tail() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1; echo "${s##*) }"; }
proc_start_time() { local f; f=$(proc_stat_tail "$1") || return 1; echo "$f" | cut -d' ' -f20; }
# alive = exists and is not a zombie
alive() { local f; f=$(proc_stat_tail "$1") || return 1; [ "${f%% *}" != Z ]; }

# record_pid FILE PID: fails when the process is already gone
record_pid() {
  local start; start=$(proc_start_time "$2") && [ -n "$start" ] || return 1
  echo "$2 $start" > "$1"
}

# recorded_pid FILE: prints the PID when the recorded process is still the one alive
recorded_pid() {
  local pid start
  [ -f "$1" ] || return 1
  read -r pid start < "$1" || return 1
  [ -n "$pid" ] && [ "$(proc_start_time "$pid")" = "$start" ] && alive "$pid" || return 1
  echo "$pid"
}

# spawn_recorded LOG FILE CMD...: runs CMD detached by setsid (a finished caller must not take it down),
# its output appended to LOG, and records it in FILE; fails, with LOG's last lines, when it exited at once.
# 9>&-: it must not inherit the lock of the script that started it (ci/local/stack.sh, ci/local/cluster.sh)
spawn_recorded() {
  local log=$1 file=$2; shift 2
  setsid "$@" >> "$log" 2>&1 < /dev/null 9>&- &
  local pid=$!
  for _ in 1 2 3 4 5 6 7 8 9 10; do record_pid "$file" "$pid" && return 0; sleep 0.05; done
  tail -n 20 "$log" >&2
  return 1
}

# stop_recorded FILE GRACE_SECONDS: SIGTERM the recorded process, SIGKILL it after the grace period, remove FILE;
# says what it did through the caller's `log`. Nothing recorded (or no longer alive): "not running".
stop_recorded() {
  local pid deadline
  if ! pid=$(recorded_pid "$1"); then rm -f "$1"; log "not running"; return 0; fi
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + $2))
  while alive "$pid"; do
    if [ $SECONDS -ge $deadline ]; then log "pid $pid ignored SIGTERM for $2s: SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
    sleep 0.2
  done
  rm -f "$1"
  log "stopped (pid $pid)"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
