#!/usr/bin/env bash
# class-data-archive.sh FILE COMMAND...: makes a service image's class-data archive (AppCDS). COMMAND is the
# image's java command with -XX:ArchiveClassesAtExit=<archive> added; FILE is where that archive shows up for this
# script. The service starts without its stores, answers a few requests on 127.0.0.1:8080 (health, metrics, an
# unknown path: 503s and 404s load the router, the handlers and the error paths), and is stopped with SIGTERM. At
# its exit the JVM writes every class it loaded to the archive; a JVM started with -XX:SharedArchiveFile=<archive>
# maps those classes instead of reading and verifying them, about half the CPU until the service is started. Last,
# the same JVM maps the archive once with -Xshare:on, which fails on an archive it could not use (the default would
# silently load every class itself): a run that prints no "sharing" fails.
# Run it where the image's paths are real (the archive names the jar by path, size and the JRE it was made with):
# in services/Dockerfile's runtime stage, or in a chroot of the image's root filesystem
# (ci/local/cluster/images/service.sh). Needs bash and coreutils' timeout only: HTTP goes through /dev/tcp.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
file=$1; shift
PORT=8080 START_S=120 STOP_S=60
out=$(mktemp)   # the service's own output (store connections refused, the JVM's notes on classes it skips)
trap 'rm -f "$out"' EXIT
log() { echo "class-data-archive: $*" >&2; }
fail() { log "$*; the service's last lines:"; tail -n 30 "$out" >&2; exit 1; }

port_open() { (exec 3<> "/dev/tcp/127.0.0.1/$PORT") 2> /dev/null; }
# get PATH: one HTTP/1.0 request, the answer read to its end (the server closes the connection); its status line
# to stderr
get() {
  local status=''
  exec 3<> "/dev/tcp/127.0.0.1/$PORT"
  printf 'GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$1" >&3
  IFS= read -r -t 30 status <&3 || true
  timeout 30 cat <&3 > /dev/null || true
  exec 3>&-
  log "GET $1: ${status%$'\r'}"
}

# another process on the port would answer in the service's place
! port_open || { log "127.0.0.1:$PORT already answers: nothing may listen there during the training run"; exit 1; }
rm -f "$file"
# the stores' default addresses (localhost) refuse at once where this runs; the lag exporter needs one to start
env -u JAVA_TOOL_OPTIONS HTTP_PORT=$PORT KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9 "$@" > "$out" 2>&1 &
pid=$!
deadline=$((SECONDS + START_S))
until port_open; do
  kill -0 "$pid" 2> /dev/null || fail "the service ended before it listened on $PORT"
  [ $SECONDS -lt $deadline ] || { kill -KILL "$pid"; fail "no listener on $PORT after $START_S s"; }
  sleep 0.2
done
for path in /health/live /health/ready /metrics /no-such-path; do get "$path"; done
kill -TERM "$pid"
deadline=$((SECONDS + STOP_S))
while kill -0 "$pid" 2> /dev/null; do
  [ $SECONDS -lt $deadline ] || { kill -KILL "$pid"; fail "still running $STOP_S s after SIGTERM"; }
  sleep 0.2
done
wait "$pid" || true   # the exit status of a service stopped by SIGTERM is not the archive's
[ -s "$file" ] || fail "no archive at $file after the service's exit"
log "$file: $(($(stat -c %s "$file") / 1048576)) MiB of classes"
# COMMAND again, mapping the archive instead of writing it, and printing the JVM's version instead of starting the jar
check=()
for arg in "$@"; do
  case $arg in
    -XX:ArchiveClassesAtExit=*) check+=(-Xshare:on "-XX:SharedArchiveFile=${arg#*=}") ;;
    -jar) check+=(-cp) ;;
    *) check+=("$arg") ;;
  esac
done
if ! version=$("${check[@]}" -version 2>&1) || ! mapped=$(grep -F sharing <<< "$version"); then
  log "the JVM does not map the archive: $version"; exit 1
fi
log "mapped: $mapped"
