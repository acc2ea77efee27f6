# Shared by the two demos, ci/local/demo.sh (local processes) and ci/local/cluster/demo.sh (the local Kubernetes node): sourced
# after they define log() and export NEWSFEED_RUN and NEWSFEED_PORT_OFFSET.
# shellcheck shell=bash

# report_end: prints the end of the report's window, the first minute boundary after now, once it has waited for
# that minute's last scrape (5 s) and the rule evaluation after it (30 s): the run's last minute is a row of the report
report_end() {
  local end wait_s
  end=$(( ($(date +%s) + 59) / 60 * 60 ))
  wait_s=$(( end + 40 - $(date +%s) ))
  log "waiting ${wait_s}s for the minute ending $(date -u -d "@$end" +%H:%M) to be recorded" >&2
  sleep "$wait_s"
  echo "$end"
}

# stop_command: the one command that stops everything, naming the run dir and offset when they are not the defaults
stop_command() {
  local cmd="make clean"
  [ "$NEWSFEED_PORT_OFFSET" = 0 ] || cmd="NEWSFEED_PORT_OFFSET=$NEWSFEED_PORT_OFFSET $cmd"
  [ "$NEWSFEED_RUN" = "$PWD/.run" ] || cmd="NEWSFEED_RUN=$NEWSFEED_RUN $cmd"
  echo "$cmd"
}
