# shellcheck shell=bash
# Background sampler of the host's CPU counters (/proc/stat), one line a second: "epoch cpu user nice ...".
start_sampler() {
  local file=$1
  (while :; do echo "$(date +%s.%N) $(head -n 1 /proc/stat)"; sleep 1; done) > "$file" &
  sampler_pid=$!
}
stop_sampler() {
  [ -n "$sampler_pid" ] || return 0
  kill "$sampler_pid" 2>/dev/null || true
  wait "$sampler_pid" 2>/dev/null || true
  sampler_pid=
}
