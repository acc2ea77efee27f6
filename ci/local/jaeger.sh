#!/usr/bin/env bash
# The local Jaeger: the traces of the local services (TRACING_ENABLED=true, docs/observability.md#traces). Jaeger v2
# built by ci/local/tools.sh (first start: minutes), receiving OTLP/HTTP and keeping the last traces in memory.
# The module it is built from carries no web UI: read the traces with `show` or Jaeger's HTTP API (`url`).
#
# Usage: ci/local/jaeger.sh start | stop | status | endpoint | url | show [SERVICE [N [OPERATION]]]
#   endpoint  the OTLP/HTTP base URL to give the services as TRACING_ENDPOINT
#   url       the query API's base URL (e.g. <url>/api/traces?service=outbound&limit=20)
#   show      the N (default 3) slowest recent traces that SERVICE (default outbound) took part in (with OPERATION:
#             in that operation, e.g. "POST /participant/:id/outbound"), each span on a line, indented under its
#             parent: service, operation, duration and what it called
# Environment: NEWSFEED_RUN (default <repo>/.run; state under $NEWSFEED_RUN/jaeger), NEWSFEED_PORT_OFFSET (OTLP on
# 127.0.0.1:14318+offset, query API on 16686+offset, its gRPC on 16685+offset), JAEGER (the binary),
# JAEGER_MAX_TRACES (default 20000).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=ci/local/jaeger/config.sh
source ci/local/jaeger/config.sh
# shellcheck source=ci/local/process.sh
source ci/local/process.sh   # pid files that survive recycled pids, alive, port_open

RUN=${NEWSFEED_RUN:-$ROOT/.run}
OFFSET=${NEWSFEED_PORT_OFFSET:-0}
OTLP_PORT=$((14318 + OFFSET))
QUERY_PORT=$((16686 + OFFSET))
QUERY_GRPC_PORT=$((16685 + OFFSET))
DIR=$RUN/jaeger
PID_FILE=$DIR/jaeger.pid
LOG=$DIR/jaeger.log
URL=http://127.0.0.1:$QUERY_PORT
log() { echo "[jaeger $(date +%T)] $*" >&2; }

start() {
  if pid=$(recorded_pid "$PID_FILE"); then log "already running (pid $pid), OTLP on $(endpoint)"; return 0; fi
  local jaeger=${JAEGER:-}
  if [ -z "$jaeger" ]; then jaeger=$(bash ci/local/tools.sh jaeger | tail -n 1)/jaeger; fi
  for port in "$OTLP_PORT" "$QUERY_PORT" "$QUERY_GRPC_PORT"; do
    if port_open "$port"; then log "port $port is taken by another process"; return 1; fi
  done
  mkdir -p "$DIR"
  jaeger_config "$OTLP_PORT" "$QUERY_PORT" "$QUERY_GRPC_PORT" "${JAEGER_MAX_TRACES:-20000}" > "$DIR/jaeger.yaml"
  # setsid: a finished or interrupted caller does not take Jaeger down; 9>&-: no inherited lock fds
  setsid "$jaeger" --config "file:$DIR/jaeger.yaml" >> "$LOG" 2>&1 < /dev/null 9>&- &
  local pid=$!
  record_pid "$PID_FILE" "$pid" || { log "jaeger exited at once; see $LOG"; tail -n 20 "$LOG" >&2; return 1; }
  local deadline=$((SECONDS + 60))
  until curl -sf -m 2 -o /dev/null "$URL/api/services" && port_open "$OTLP_PORT"; do
    if ! alive "$pid"; then log "jaeger exited during start; last log lines:"; tail -n 20 "$LOG" >&2; return 1; fi
    if [ $SECONDS -ge $deadline ]; then log "not ready after 60s; see $LOG"; stop; return 1; fi
    sleep 0.3
  done
  log "ready (pid $pid): OTLP/HTTP on $(endpoint), query API on $URL"
}

stop() { stop_recorded "$PID_FILE" 20; }

status() {
  local pid
  if pid=$(recorded_pid "$PID_FILE"); then echo "jaeger: running (pid $pid), OTLP $(endpoint), query $URL"; return 0; fi
  echo "jaeger: stopped"; return 3
}

endpoint() { echo "http://127.0.0.1:$OTLP_PORT"; }

show() {
  python3 ci/local/jaeger/show_traces.py --url "$URL" --service "${1:-outbound}" --limit "${2:-3}" --operation "${3:-}"
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status) status ;;
  endpoint) endpoint ;;
  url) echo "$URL" ;;
  show) shift; show "$@" ;;
  *) echo "usage: $0 start|stop|status|endpoint|url|show [SERVICE [N [OPERATION]]]" >&2; exit 2 ;;
esac
