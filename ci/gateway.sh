#!/usr/bin/env bash
# Local gateway (nginx) exposing the classic single API by path in front of the four local services,
# as the chart's Ingress/HTTPRoute does in a cluster. Usage: ci/gateway.sh start|stop|status
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${NEWSFEED_RUN:-$PWD/.run}/gateway
OFFSET=${NEWSFEED_PORT_OFFSET:-0}
PORT=$((18080 + OFFSET))
NGINX=${NGINX:-/usr/sbin/nginx}

running() { [ -f "$RUN/nginx.pid" ] && kill -0 "$(cat "$RUN/nginx.pid")" 2>/dev/null; }

start() {
  if running; then echo "gateway already running on 127.0.0.1:$PORT"; return; fi
  mkdir -p "$RUN/tmp"
  sed -e "s#@RUN@#$RUN#g" -e "s#@GATEWAY_PORT@#$PORT#g" \
      -e "s#@SOCIAL_GRAPH_PORT@#$((18081 + OFFSET))#g" -e "s#@OUTBOUND_PORT@#$((18082 + OFFSET))#g" \
      -e "s#@INBOUND_PORT@#$((18083 + OFFSET))#g" -e "s#@SEARCH_PORT@#$((18084 + OFFSET))#g" \
      ci/gateway/nginx.conf.template > "$RUN/nginx.conf"
  "$NGINX" -t -q -c "$RUN/nginx.conf" -e "$RUN/error.log"
  "$NGINX" -c "$RUN/nginx.conf" -e "$RUN/error.log"
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/gateway/health" >/dev/null && break; sleep 0.1; done
  echo "gateway  pid $(cat "$RUN/nginx.pid")  http://127.0.0.1:$PORT  (classic single API)"
}

stop() {
  running || return 0
  local pid; pid=$(cat "$RUN/nginx.pid")
  kill -QUIT "$pid"   # graceful: finish in-flight requests
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  rm -f "$RUN/nginx.pid"
}

case "${1:-}" in
  start) start ;; stop) stop ;;
  status) if running; then echo "gateway running on 127.0.0.1:$PORT"; else echo "gateway not running"; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
