#!/usr/bin/env bash
# image-start.sh [--cpu "MILLICORES..."] [--memory MIB] IMAGE...: how long a service image's JVM takes to start under a
# CPU limit, and the CPU it spends, with and without the class-data archives. Per image and limit, three starts:
#   off      -Xshare:off: every class read from the jar and the runtime and verified
#   jdk      the JDK's own archive only (the ENTRYPOINT without -XX:SharedArchiveFile)
#   service  the ENTRYPOINT as it is: the JDK's archive and the service's /app/service.jsa
# IMAGE is a service image of ci/local/cluster/images.sh (built when missing: social-graph, outbound, ...). Its layer
# is unpacked once; each start runs the ENTRYPOINT in a chroot of it with its own network, mount and PID namespaces
# and no stores (their addresses refuse at once), in a cgroup with the CPU quota. The JVM is told what a pod's JVM
# would read from its cgroup: the processors (the limit rounded up) and the memory (--memory, default 768, the
# chart's limit). Measured: seconds from exec until GET /health/live answers 200, and the cgroup's CPU-seconds then.
# Prints a Markdown table. Defaults: --cpu "100 250 1000". Needs root (chroot, namespaces, cgroups).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
CPUS="100 250 1000" MEMORY=768 IMAGES=()
while [ $# -gt 0 ]; do
  case $1 in
    --cpu) CPUS=$2; shift 2 ;;
    --memory) MEMORY=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) IMAGES+=("$1"); shift ;;
  esac
done
[ ${#IMAGES[@]} -gt 0 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $MEMORY =~ ^[0-9]+$ ]] || { echo "--memory: MiB as a number, got '$MEMORY'" >&2; exit 2; }
for m in $CPUS; do [[ $m =~ ^[1-9][0-9]*$ ]] || { echo "--cpu: millicores as numbers, got '$m'" >&2; exit 2; }; done
[ "$(id -u)" = 0 ] || { echo "image-start.sh: needs root (chroot, namespaces, cgroups)" >&2; exit 1; }
# shellcheck source=ci/local/cluster/rootfs.sh
source ci/local/cluster/rootfs.sh   # rootfs_isolated
WORK=$(mktemp -d /tmp/newsfeed-image-start.XXXXXX)
CG_NAME=newsfeed-image-start-$$
log() { echo "[image-start $(date +%T)] $*" >&2; }

# the cgroup: v2 (one tree) or v1 (the cpu and cpuacct hierarchies, mounted apart or together)
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  CG_V=2 CG_CPU=/sys/fs/cgroup/$CG_NAME CG_ACCT=$CG_CPU
  grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu > /sys/fs/cgroup/cgroup.subtree_control
else
  CG_V=1
  CG_CPU=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ {print $2; exit}' /proc/mounts)/$CG_NAME
  CG_ACCT=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpuacct(,|$)/ {print $2; exit}' /proc/mounts)/$CG_NAME
fi
cleanup() {
  local _
  for _ in 1 2 3 4 5 6 7 8 9 10; do   # a killed JVM leaves its cgroup a moment after its parent saw it end
    rmdir "$CG_CPU" "$CG_ACCT" 2> /dev/null || true
    [ -d "$CG_CPU" ] || [ -d "$CG_ACCT" ] || break
    sleep 0.5
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$CG_CPU" "$CG_ACCT"
cg_quota() {  # MILLICORES, over a 100 ms period
  if [ $CG_V = 2 ]; then echo "$(($1 * 100)) 100000" > "$CG_CPU/cpu.max"
  else echo 100000 > "$CG_CPU/cpu.cfs_period_us"; echo $(($1 * 100)) > "$CG_CPU/cpu.cfs_quota_us"; fi
}
cg_join() {  # PID
  if [ $CG_V = 2 ]; then echo "$1" > "$CG_CPU/cgroup.procs"; else echo "$1" > "$CG_CPU/tasks"; echo "$1" > "$CG_ACCT/tasks"; fi
}
cg_empty() {
  if [ $CG_V = 2 ]; then [ ! -s "$CG_CPU/cgroup.procs" ]; else [ ! -s "$CG_CPU/tasks" ]; fi
}
cg_cpu_ns() {
  if [ $CG_V = 2 ]; then echo $(($(awk '$1 == "usage_usec" {print $2}' "$CG_CPU/cpu.stat") * 1000))
  else cat "$CG_ACCT/cpuacct.usage"; fi
}

# unpack ARCHIVE DIR: the image's layers into DIR; prints the ENTRYPOINT, one argument per line
unpack() {
  python3 - "$1" "$2" << 'EOF'
import json, sys, tarfile
archive, root = sys.argv[1], sys.argv[2]
with tarfile.open(archive) as t:
    blob = lambda d: t.extractfile("blobs/sha256/" + d.split(":", 1)[1])
    manifest = json.load(blob(json.load(t.extractfile("index.json"))["manifests"][0]["digest"]))
    for layer in manifest["layers"]:
        with tarfile.open(fileobj=blob(layer["digest"]), mode="r|") as lt:
            lt.extractall(root, filter="fully_trusted")
    print("\n".join(json.load(blob(manifest["config"]["digest"]))["config"]["Entrypoint"]))
EOF
}

# start ROOT MILLICORES ARG...: one start of ARG... (a java command) in a chroot of ROOT isolated from the machine
# (rootfs_isolated) under the quota; prints "SECONDS CPU_SECONDS" at the first 200 of /health/live
start() {
  local root=$1 milli=$2 pid child='' java_pid='' t0 t1 cpu0 cpu; shift 2
  cg_quota "$milli"
  cpu0=$(cg_cpu_ns)
  t0=$(date +%s%N)
  (cg_join "$BASHPID"
   rootfs_isolated "$root" env -u JAVA_TOOL_OPTIONS HTTP_PORT=8080 KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9 chroot "$root" "$@") \
    > "$WORK/service.log" 2>&1 &
  pid=$!
  # the JVM: the first process of the namespaces, a child of unshare, itself a child of that subshell
  until [ -n "$java_pid" ]; do
    kill -0 "$pid" 2> /dev/null || { log "the service ended before it started:"; tail -n 20 "$WORK/service.log" >&2; return 1; }
    child=$(pgrep -P "$pid" | head -n 1) || true
    [ -z "$child" ] || java_pid=$(pgrep -P "$child" | head -n 1) || true
    sleep 0.05
  done
  until [ "$(nsenter --net="/proc/$java_pid/ns/net" curl -s -o /dev/null -m 5 -w '%{http_code}' \
      http://127.0.0.1:8080/health/live 2> /dev/null)" = 200 ]; do
    kill -0 "$pid" 2> /dev/null || { log "the service ended before it answered:"; tail -n 20 "$WORK/service.log" >&2; return 1; }
    sleep 0.05
  done
  t1=$(date +%s%N); cpu=$(($(cg_cpu_ns) - cpu0))
  kill -KILL "$java_pid" 2> /dev/null || true   # the namespaces' first process: all of them end with it
  wait "$pid" 2> /dev/null || true
  until cg_empty; do sleep 0.1; done   # the next start gets the cgroup to itself
  awk -v t=$((t1 - t0)) -v c="$cpu" 'BEGIN {printf "%.1f %.2f\n", t / 1e9, c / 1e9}'
}

echo "| image | CPU limit | archives | start to /health/live 200 | CPU-seconds by then |"
echo "|---|---:|---|---:|---:|"
for image in "${IMAGES[@]}"; do
  read -r _ archive < <(bash ci/local/cluster/images.sh build "$image" 2> "$WORK/build.log" | tail -n 1) ||
    { tail -n 20 "$WORK/build.log" >&2; exit 1; }
  root=$WORK/root-$image; mkdir -p "$root"
  mapfile -t entrypoint < <(unpack "$archive" "$root")
  java=${entrypoint[0]}   # as the image runs it, found on PATH inside the chroot
  flags=(); jar=()
  for a in "${entrypoint[@]:1}"; do
    if [ ${#jar[@]} -gt 0 ] || [ "$a" = -jar ]; then jar+=("$a"); else flags+=("$a"); fi
  done
  for milli in $CPUS; do
    pod=("-XX:ActiveProcessorCount=$(((milli + 999) / 1000))" "-XX:MaxRAM=${MEMORY}m")
    jdk=(); for a in "${flags[@]}"; do [[ $a == -XX:SharedArchiveFile=* ]] || jdk+=("$a"); done
    for variant in off jdk service; do
      case $variant in
        off) args=("${jdk[@]}" -Xshare:off) ;;
        jdk) args=("${jdk[@]}") ;;
        service) args=("${flags[@]}") ;;
      esac
      read -r secs cpu < <(start "$root" "$milli" "$java" "${pod[@]}" "${args[@]}" "${jar[@]}") || exit 1
      echo "| $image | ${milli}m | $variant | $secs s | $cpu |"
    done
  done
done
