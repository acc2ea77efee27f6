#!/usr/bin/env bash
# The local Prometheus: the real Prometheus 3 binary of ci/local/tools.sh, scraping the five local services every 5s
# (and the stores' own metrics when the stack is up: the exporters of PostgreSQL, Redis and Kafka, Solr;
# NEWSFEED_STACK_ENV, default $NEWSFEED_RUN/stack.env),
# evaluating the chart's recording and alerting rules (charts/newsfeed/files/prometheus/newsfeed.rules.yml and
# newsfeed.alerts.yml, the files the PrometheusRule ships; the alerts with their default thresholds and no
# Alertmanager: firing alerts show on /alerts) and accepting k6's remote write on /api/v1/write.
#
# Usage: ci/local/prometheus.sh start | stop | status
#        ci/local/prometheus.sh report [--start S] [--end E] [--out DIR] [--testid ID]
#   report: per-minute HTML, Markdown, CSV and PNG charts from the recorded series over [S, E] (unix seconds or
#   RFC3339; also START, END, OUT, TESTID in the environment; default: the last hour, into
#   $NEWSFEED_RUN/reports/report-<time>). PROMETHEUS_URL overrides the local Prometheus it reads.
# Environment: NEWSFEED_RUN (default <repo>/.run; data under $NEWSFEED_RUN/prometheus), NEWSFEED_PORT_OFFSET
# (listens on 127.0.0.1:19090+offset, scrapes 18081..18084+offset), PROMETHEUS (the binary).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=ci/local/prometheus/config.sh
source ci/local/prometheus/config.sh
# shellcheck source=ci/local/process.sh
source ci/local/process.sh

RUN=${NEWSFEED_RUN:-$ROOT/.run}
OFFSET=${NEWSFEED_PORT_OFFSET:-0}
PORT=$((19090 + OFFSET))
DIR=$RUN/prometheus
PID_FILE=$DIR/prometheus.pid
LOG=$DIR/prometheus.log
RULES=$ROOT/charts/newsfeed/files/prometheus/newsfeed.rules.yml
ALERTS=$ROOT/charts/newsfeed/files/prometheus/newsfeed.alerts.yml
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
PROMETHEUS=${PROMETHEUS:-$CACHE/bin/prometheus}
URL=http://127.0.0.1:$PORT
STACK_ENV=${NEWSFEED_STACK_ENV:-$RUN/stack.env}
log() { echo "[prometheus $(date +%T)] $*" >&2; }

start() {
  if pid=$(recorded_pid "$PID_FILE"); then log "already running (pid $pid) on $URL"; return 0; fi
  [ -x "$PROMETHEUS" ] || { log "no prometheus at $PROMETHEUS (install it with: bash ci/local/tools.sh all)"; return 1; }
  if port_open "$PORT"; then log "port $PORT is taken by another process"; return 1; fi
  mkdir -p "$DIR/data"
  prometheus_config "$OFFSET" "$RULES" "$ALERTS" > "$DIR/prometheus.yml"
  # the stores' own metrics, when the stack is up (as `make demo` starts it: before Prometheus)
  if [ -f "$STACK_ENV" ]; then prometheus_store_jobs "$STACK_ENV" "$DIR" >> "$DIR/prometheus.yml"; fi
  # setsid: a finished or interrupted caller does not take Prometheus down; 9>&-: no inherited lock fds
  setsid "$PROMETHEUS" --config.file="$DIR/prometheus.yml" --storage.tsdb.path="$DIR/data" \
    --storage.tsdb.retention.time=30d --web.listen-address="127.0.0.1:$PORT" \
    --web.enable-remote-write-receiver --enable-feature=exemplar-storage >> "$LOG" 2>&1 < /dev/null 9>&- &
  local pid=$!
  record_pid "$PID_FILE" "$pid" || { log "prometheus exited at once; see $LOG"; tail -n 20 "$LOG" >&2; return 1; }
  local deadline=$((SECONDS + 60))
  until curl -sf -m 2 -o /dev/null "$URL/-/ready"; do
    if ! alive "$pid"; then log "prometheus exited during start; last log lines:"; tail -n 20 "$LOG" >&2; return 1; fi
    if [ $SECONDS -ge $deadline ]; then log "not ready after 60s; see $LOG"; stop; return 1; fi
    sleep 0.3
  done
  local groups alerts
  groups=$(curl -sf -m 5 "$URL/api/v1/rules?type=record" | jq -r '[.data.groups[].name] | join(" ")')
  alerts=$(curl -sf -m 5 "$URL/api/v1/rules?type=alert" | jq -r '[.data.groups[].rules[]] | length')
  log "ready on $URL (pid $pid, data $DIR/data), rule groups: ${groups:-none}; ${alerts:-0} alerting rules"
  [ -n "$groups" ] || { log "no rule group loaded from $RULES"; return 1; }
  [ "${alerts:-0}" -gt 0 ] || { log "no alerting rule loaded from $ALERTS"; return 1; }
}

stop() { stop_recorded "$PID_FILE" 30; }

status() {
  local pid
  if pid=$(recorded_pid "$PID_FILE"); then echo "prometheus: running (pid $pid) on $URL, data $DIR/data"; return 0; fi
  echo "prometheus: stopped"; return 3
}

# unix seconds from unix seconds or anything `date -d` reads (RFC3339, "10 minutes ago")
to_unix() { if [[ $1 =~ ^[0-9]+$ ]]; then echo "$1"; else date -d "$1" +%s; fi; }

report() {
  local start=${START:-} end=${END:-} out=${OUT:-} testid=${TESTID:-}
  while [ $# -gt 0 ]; do
    case $1 in
      --start) start=$2; shift 2 ;;
      --end) end=$2; shift 2 ;;
      --out) out=$2; shift 2 ;;
      --testid) testid=$2; shift 2 ;;
      *) echo "unknown report option $1" >&2; exit 2 ;;
    esac
  done
  end=$(to_unix "${end:-$(date +%s)}")
  start=$(to_unix "${start:-$((end - 3600))}")
  out=${out:-$RUN/reports/report-$(date -u +%Y%m%dT%H%M%SZ -d "@$end")}
  local python
  python=$(bash ci/bench/report/venv.sh)
  "$python" ci/bench/report/report.py --url "${PROMETHEUS_URL:-$URL}" --start "$start" --end "$end" --out "$out" \
    ${testid:+--testid "$testid"}
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status) status ;;
  report) shift; report "$@" ;;
  *) echo "usage: $0 start|stop|status|report [--start S --end E --out DIR --testid ID]" >&2; exit 2 ;;
esac
