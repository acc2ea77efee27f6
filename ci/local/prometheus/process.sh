# Process helpers of ci/local/prometheus.sh and its test: a pid file holds "PID STARTTIME", so a stop never signals a
# recycled PID (the same scheme as ci/local/stack/lib.sh).
# shellcheck shell=bash

# /proc/PID/stat after the "(comm)" field, which may contain spaces: "STATE PPID ... STARTTIME ..."
proc_stat_tail() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1; echo "${s##*) }"; }
proc_start_time() { local f; f=$(proc_stat_tail "$1") || return 1; echo "$f" | cut -d' ' -f20; }
# alive = exists and is not a zombie
alive() { local f; f=$(proc_stat_tail "$1") || return 1; [ "${f%% *}" != Z ]; }

# record_pid FILE PID: fails when the process is already gone
record_pid() {
  local start; start=$(proc_start_time "$2") || return 1
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

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
