# Redis 7 (Debian's redis-server) as a pure cache: no RDB snapshots, no AOF, a memory limit.
# shellcheck shell=bash

# Renamed away as the chart's Redis does (charts/newsfeed/values.yaml, redis.master.disableCommands; ci/tests/charts.sh
# checks the two lists are the same): Lua scripting and functions, MODULE, CONFIG, DEBUG and the flushes. The services
# use keys and strings (GET, SET, INCR, DEL, EXISTS), sorted sets (ZADD, ZRANGE, ZREMRANGEBYRANK, EXPIRE) and
# transactions (WATCH, MULTI, EXEC) only.
REDIS_DISABLED_COMMANDS=(FLUSHDB FLUSHALL EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT FUNCTION FCALL FCALL_RO MODULE CONFIG DEBUG)
# A cache at a memory limit, as the chart's Redis (redis.commonConfiguration; ci/tests/charts.sh checks they match):
# past maxmemory Redis evicts the keys nearest their expiry instead of growing. NEWSFEED_REDIS_MAXMEMORY gives a
# benchmark more room.
REDIS_MAXMEMORY=${NEWSFEED_REDIS_MAXMEMORY:-192mb}
REDIS_MAXMEMORY_POLICY=volatile-ttl

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
    --maxmemory "$REDIS_MAXMEMORY" --maxmemory-policy "$REDIS_MAXMEMORY_POLICY" --dir "$dir" --daemonize no \
    --protected-mode "$protected" --loglevel notice --proc-title-template "{title} {listen-addr} $dir")
  record_store_pid redis "$pid"
}

redis_ready() { [ "$(redis-cli -h "$STACK_HOST" -p "$REDIS_PORT" PING)" = PONG ]; }
redis_schema() { :; }
redis_stop_signal() { echo TERM; }

# redis_exporter beside Redis, as the chart's Redis runs it (`redis.metrics`): `redis_*` series on
# REDIS_EXPORTER_PORT. CONFIG is renamed away here as there, so its config metrics are skipped.
redis_exporter_start() {
  local dir=$STACK_DIR/redis pid
  local bin=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/bin/redis_exporter
  [ -x "$bin" ] || die "no redis_exporter at $bin (bash ci/local/tools.sh exporters builds it)"
  # started in the store's dir: ci/local/leftovers.sh finds this run's processes by it
  pid=$(cd "$dir" && spawn redis-exporter "$bin" -redis.addr "redis://$STACK_HOST:$REDIS_PORT" \
    -web.listen-address "$STACK_HOST:$REDIS_EXPORTER_PORT" -config-command - -ping-on-connect)
  record_store_pid redis-exporter "$pid"
}
redis_exporter_ready() { curl -fsS -o /dev/null "http://$STACK_HOST:$REDIS_EXPORTER_PORT/metrics"; }
