#!/usr/bin/env bash
# The chart's images without a registry or a base image: OCI archives built from this machine's own files into
# ~/.cache/newsfeed/images, ready for `ci/local/cluster.sh import`. One recipe per image under ci/local/cluster/images/:
#   social-graph outbound inbound search   the services (JRE from the local JDK 17 + the jar; services/Dockerfile
#   edge kafka-lag-exporter                stays the recipe for registries; check-image-config.py keeps them equal)
#   k6                                     the pinned static k6 of ci/local/tools.sh
#   init-postgresql init-cassandra         the schema Jobs' tools: psql/pg_isready, cqlsh,
#   init-kafka init-solr                   kafka-topics.sh, python3 (files/init/*)
#   curl                                   `helm test`
#   postgresql                             the server CloudNativePG runs (Debian's postgresql-15)
# and, built only when named (not the chart's):
#   solr                                   a standalone Solr for the cluster suite's PodMonitor check
# An archive is rebuilt only when its inputs (binaries, jar, recipe) change.
# Every image is tagged with the chart's appVersion, but postgresql with the server's version (the operator reads
# the major version from the tag); the version of what it holds is its description label.
# Usage: ci/local/cluster/images.sh build [IMAGE...]   build (default: all); prints "REF ARCHIVE" per image
#        ci/local/cluster/images.sh refs [IMAGE...]    print "IMAGE REF" without building
#        ci/local/cluster/images.sh list               the image names
# Environment: NEWSFEED_CACHE (default ~/.cache/newsfeed), NEWSFEED_JDK_HOME (default the Debian JDK 17).
set -euo pipefail
IMAGES_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/images" && pwd)
REPO_ROOT=$(cd "$IMAGES_SRC/../../../.." && pwd)
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
IMAGES_CACHE=$CACHE/images
export APP_VERSION   # read by the recipes
APP_VERSION=$(bash "$REPO_ROOT/ci/release/app-version.sh")
OCI_IMAGE=$REPO_ROOT/ci/local/cluster/oci-image.py
# shellcheck source=ci/local/cluster/rootfs.sh
source "$REPO_ROOT/ci/local/cluster/rootfs.sh"
for recipe in jre python service k6 init-postgresql init-cassandra init-kafka init-solr curl postgresql solr; do
  # shellcheck source=/dev/null
  source "$IMAGES_SRC/$recipe.sh"
done

IMAGES=("${SERVICES[@]}" k6 init-postgresql init-cassandra init-kafka init-solr curl postgresql)
TEST_IMAGES=(solr)   # built only when named
log() { echo "[images $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

is_service() { local s; for s in "${SERVICES[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
# recipe IMAGE FUNC [ARG...]: the image's function (service_* with the service name, else <image>_*)
recipe() {
  local image=$1 fn=$2; shift 2
  if is_service "$image"; then "service_$fn" "$image" "$@"; else "${image//-/_}_$fn" "$@"; fi
}
archive() { local ref; ref=$(recipe "$1" ref); ref=${ref#localhost/}; echo "$IMAGES_CACHE/${ref//[:\/]/_}.tar"; }

build_one() {
  local image=$1 ref out inputs started=$SECONDS
  ref=$(recipe "$image" ref); out=$(archive "$image")
  inputs=$(recipe "$image" inputs | awk '{print $1}' | sha256sum | cut -c1-16)
  if [ -f "$out" ] && [ "$(cat "$out.inputs" 2>/dev/null)" = "$inputs" ]; then
    echo "$ref $out"; return 0
  fi
  local root=$IMAGES_CACHE/rootfs/$image config=()
  recipe "$image" rootfs "$root" || die "$image: rootfs failed"
  mapfile -t config < <(recipe "$image" config)
  python3 "$OCI_IMAGE" "$ref" "$root" "$out" "${config[@]}" >&2 || die "$image: oci-image.py failed"
  echo "$inputs" > "$out.inputs"
  log "$ref: rootfs $(( $(rootfs_size "$root") / 1048576 )) MiB, archive $(( $(stat -c %s "$out") / 1048576 )) MiB in $((SECONDS - started))s"
  rm -rf "$root"
  echo "$ref $out"
}

check_names() {
  local n i ok
  for n in "$@"; do
    ok=false; for i in "${IMAGES[@]}" "${TEST_IMAGES[@]}"; do [ "$i" = "$n" ] && ok=true; done
    $ok || die "unknown image '$n' (one of: ${IMAGES[*]} ${TEST_IMAGES[*]})"
  done
}

main() {
  local cmd=${1:-}; shift || true
  local names=("$@"); [ ${#names[@]} -gt 0 ] || names=("${IMAGES[@]}")
  check_names "${names[@]}"
  case $cmd in
    build)
      mkdir -p "$IMAGES_CACHE"
      local n; for n in "${names[@]}"; do build_one "$n"; done ;;
    refs) local n; for n in "${names[@]}"; do echo "$n $(recipe "$n" ref)"; done ;;
    list) printf '%s\n' "${IMAGES[@]}" ;;
    *) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
}

main "$@"
