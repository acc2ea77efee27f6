# Redis 7 (Debian's redis-server) as a pure cache: no RDB snapshots, no AOF.
# shellcheck shell=bash

# Renamed away as the chart's Redis does (charts/newsfeed/values.yaml, redis.master.disableCommands; ci/tests/charts.sh
# checks the two lists are the same): Lua scripting and functions, MODULE, CONFIG, DEBUG and the flushes. The services
# use strings (GET, MGET, SET, INCR, DEL), sorted sets (ZADD, ZRANGE, ZREMRANGEBYRANK, EXPIRE) and transactions (WATCH,
# MULTI, EXEC) only.
REDIS_DISABLED_COMMANDS=(FLUSHDB FLUSHALL EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT FUNCTION FCALL FCALL_RO MODULE CONFIG DEBUG)

redis_start() {
  local dir=$STACK_DIR/redis; mkdir -p "$dir"
  local pid protected=yes
  # rename-command only works from a config file (or the command line), never at run time
  printf 'rename-command %s ""\n' "${REDIS_DISABLED_COMMANDS[@]}" > "$dir/redis.conf"
  # protected mode admits only loopback clients while there is no password; bound to the local node's address
  # (reachable from this machine and its pods only) the pods must get in
  [ "$STACK_HOST" = 127.0.0.1 ] || protected=no
  # the process title names the run dir: Redis overwrites its argv and environment, and
  # ci/bench/experiment/cpu_split.py tells this run's processes from others' by that dir
  pid=$(spawn redis redis-server "$dir/redis.conf" --bind "$STACK_HOST" --port "$REDIS_PORT" --save "" --appendonly no \
    --dir "$dir" --daemonize no --protected-mode "$protected" --loglevel notice \
    --proc-title-template "{title} {listen-addr} $dir")
  record_pid redis "$pid"
}

redis_ready() { [ "$(redis-cli -h "$STACK_HOST" -p "$REDIS_PORT" PING)" = PONG ]; }
redis_schema() { :; }
redis_stop_signal() { echo TERM; }
