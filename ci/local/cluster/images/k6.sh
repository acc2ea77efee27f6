# The k6 image: the pinned k6 that ci/local/tools.sh builds (CGO off, so one static binary and nothing else),
# ENTRYPOINT k6 like grafana/k6 (the chart passes `run ...` as args), user 12345 as the chart's k6 pods.
# shellcheck shell=bash

k6_bin() { echo "${NEWSFEED_BIN:-$CACHE/bin}/k6"; }
k6_version() { "$(k6_bin)" version | awk '{print $2; exit}' | sed 's/^v//'; }
k6_ref() { echo "localhost/newsfeed-k6:$APP_VERSION"; }
k6_inputs() { sha256sum "$(readlink -f "$(k6_bin)")" "$IMAGES_SRC/k6.sh"; }

k6_rootfs() {
  local d=$1
  [ -x "$(k6_bin)" ] || { echo "$(k6_bin) missing: bash ci/local/tools.sh go" >&2; return 1; }
  rootfs_init "$d"
  rootfs_user "$d" 12345 k6
  cp -L "$(k6_bin)" "$d/usr/bin/k6"
  rootfs_libs "$d" "$d/usr/bin/k6"   # nothing when static; a cgo build would bring its libc here
}

k6_config() {
  printf '%s\n' --entrypoint '["k6"]' --user 12345:12345 --workdir /tmp \
    --label "org.opencontainers.image.description=k6 $(k6_version)"
}
