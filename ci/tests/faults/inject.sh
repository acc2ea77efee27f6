#!/usr/bin/env bash
# Faults that leave a store running but unreachable, slow or full, for the fault suite (as root):
#   inject.sh drop-answers STORE  packets from the store's client port on loopback are dropped: requests arrive and
#                                 the store does the work, but no answer (nor a new connection's handshake) comes back
#   inject.sh blackhole STORE     packets to and from that port are dropped: a network partition, nothing refused
#   inject.sh slow STORE          the store's process stopped 0.3 s of every 0.5 s (SIGSTOP/SIGCONT): it answers,
#                                 late, as a store in long pauses does
#   inject.sh fill redis          Redis filled past its maxmemory with keys of the suite's own that expire after every
#                                 key of the services (an hour): to take the services' writes, Redis must evict their
#                                 cached values and generations (volatile-ttl), as a Redis at its memory limit does
#   inject.sh clear               every rule removed, every paused store continued and the fill deleted (idempotent:
#                                 the suite's EXIT trap calls it too)
# The rules live in an iptables chain of the run's own (NEWSFEED-FAULTS-<port offset>) jumped to from OUTPUT, the
# one hook every loopback packet passes, so the machine's other rules and other runs are never touched. State
# (the pause loop's pid, whether Redis was filled) is kept in $NEWSFEED_RUN/faults-inject.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
# shellcheck source=ci/local/stack/lib.sh
source ci/local/stack/lib.sh   # store_pid, NEWSFEED_RUN, OFFSET
CHAIN=NEWSFEED-FAULTS-$OFFSET
STATE=$NEWSFEED_RUN/faults-inject
mkdir -p "$STATE"

chain_up() {
  iptables -w -N "$CHAIN" 2>/dev/null || true
  iptables -w -C OUTPUT -o lo -j "$CHAIN" 2>/dev/null || iptables -w -I OUTPUT -o lo -j "$CHAIN"
}

client_port() {
  case $1 in
    kafka) echo "$KAFKA_PORT" ;; cassandra) echo "$CASSANDRA_PORT" ;; postgresql) echo "$PG_PORT" ;;
    redis) echo "$REDIS_PORT" ;; solr) echo "$SOLR_PORT" ;; *) die "unknown store '$1'" ;;
  esac
}

drop() {  # drop STORE sport|dport...
  local port; port=$(client_port "$1"); shift
  chain_up
  for dir in "$@"; do iptables -w -A "$CHAIN" -p tcp --"$dir" "$port" -j DROP; done
}

slow() {
  local pid; pid=$(store_pid "$1") || die "$1 is not running"
  # a loop of its own (setsid), so clear can stop it however it was started; it ends by itself if the store does
  setsid bash -c "while kill -STOP $pid 2>/dev/null; do sleep 0.3; kill -CONT $pid; sleep 0.2; done" \
    </dev/null >/dev/null 2>&1 &
  echo "$! $pid" > "$STATE/slow"
}

FILLER=newsfeed-faults:filler:
redis_cli() { redis-cli -h "$STACK_HOST" -p "$REDIS_PORT" "$@"; }

fill() {
  [ "$1" = redis ] || die "only redis fills up, not '$1'"
  local max
  max=$(redis_cli INFO memory | tr -d '\r' | sed -n 's/^maxmemory://p')
  [ "${max:-0}" -gt 0 ] || die "Redis has no maxmemory: filled, it would grow until the machine runs out"
  touch "$STATE/filled"   # first: clear deletes whatever part of the fill got in
  # 4 KiB values up to 1.2 x maxmemory, as inline commands through one pipe
  python3 -c '
import sys
value = "x" * 4096
for i in range(int(int(sys.argv[1]) * 1.2) // 4096):
    sys.stdout.write(f"SET {sys.argv[2]}{i} {value} EX 3600\r\n")' "$max" "$FILLER" | redis_cli --pipe >/dev/null
}

clear_all() {
  local loop pid
  if [ -f "$STATE/filled" ]; then
    redis_cli --scan --pattern "$FILLER*" | awk '{ printf "UNLINK %s\r\n", $0 }' | redis_cli --pipe >/dev/null ||
      echo "inject.sh: the fill of Redis could not be deleted (it expires within the hour)" >&2
    rm -f "$STATE/filled"
  fi
  if [ -f "$STATE/slow" ]; then
    read -r loop pid < "$STATE/slow"
    kill -- "-$loop" 2>/dev/null || kill "$loop" 2>/dev/null || true
    kill -CONT "$pid" 2>/dev/null || true
    rm -f "$STATE/slow"
  fi
  if command -v iptables >/dev/null; then
    while iptables -w -D OUTPUT -o lo -j "$CHAIN" 2>/dev/null; do :; done
    iptables -w -F "$CHAIN" 2>/dev/null || true
    iptables -w -X "$CHAIN" 2>/dev/null || true
  fi
}

case ${1:-} in
  drop-answers) drop "${2:-}" sport ;;
  blackhole) drop "${2:-}" sport dport ;;
  slow) slow "${2:-}" ;;
  fill) fill "${2:-}" ;;
  clear) clear_all ;;
  *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
