#!/usr/bin/env bash
# Local gateway (nginx) exposing the classic single API by path in front of the five local services (GraphQL on
# `/` and `/graphql` to edge), as the chart's Ingress/HTTPRoute does in a cluster, balancing over every instance
# of a service (round robin).
# Usage: ci/local/gateway.sh start|stop|reload|status   (reload: after SERVICE_INSTANCES changed)
set -euo pipefail
cd "$(dirname "$0")/../.."
RUN=${NEWSFEED_RUN:-$PWD/.run}/gateway
OFFSET=${NEWSFEED_PORT_OFFSET:-0}
PORT=$((18080 + OFFSET))
NGINX=${NGINX:-/usr/sbin/nginx}

# "server 127.0.0.1:P;" for every instance of a service (SERVICE_INSTANCES, as ci/local/services.sh starts them)
servers() { bash ci/local/services.sh ports "$1" | sed 's/.*/server 127.0.0.1:&;/' | tr '\n' ' '; }

running() { [ -f "$RUN/nginx.pid" ] && kill -0 "$(cat "$RUN/nginx.pid")" 2>/dev/null; }

start() {
  if running; then echo "gateway already running on 127.0.0.1:$PORT"; return; fi
  mkdir -p "$RUN/tmp"
  sed -e "s#@RUN@#$RUN#g" -e "s#@GATEWAY_PORT@#$PORT#g" \
      -e "s#@SOCIAL_GRAPH_SERVERS@#$(servers social-graph)#g" -e "s#@OUTBOUND_SERVERS@#$(servers outbound)#g" \
      -e "s#@INBOUND_SERVERS@#$(servers inbound)#g" -e "s#@SEARCH_SERVERS@#$(servers search)#g" \
      -e "s#@EDGE_SERVERS@#$(servers edge)#g" \
      ci/local/gateway/nginx.conf.template > "$RUN/nginx.conf"
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
  reload) if running; then stop; fi; start ;;
  status) if running; then echo "gateway running on 127.0.0.1:$PORT"; else echo "gateway not running"; fi ;;
  *) echo "usage: $0 start|stop|reload|status" >&2; exit 2 ;;
esac
