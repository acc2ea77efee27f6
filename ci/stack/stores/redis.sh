# Redis 7 (Debian's redis-server) as a pure cache: no RDB snapshots, no AOF.
# shellcheck shell=bash

redis_start() {
  local dir=$STACK_DIR/redis; mkdir -p "$dir"
  local pid
  # the process title names the run dir: Redis overwrites its argv and environment, and
  # ci/experiment/cpu_split.py tells this run's processes from others' by that dir
  pid=$(spawn redis redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir "$dir" --daemonize no --protected-mode yes --loglevel notice \
    --proc-title-template "{title} {listen-addr} $dir")
  record_pid redis "$pid"
}

redis_ready() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" PING)" = PONG ]; }
redis_schema() { :; }
redis_stop_signal() { echo TERM; }
