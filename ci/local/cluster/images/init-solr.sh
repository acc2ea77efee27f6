# The Solr init image: python3 (python.sh) for files/init/solr.py, which needs only the standard library,
# busybox for wait-for.sh, user 10001 as the chart's default for this Job.
# shellcheck shell=bash

init_solr_ref() { echo "localhost/newsfeed-init-solr:$APP_VERSION"; }
init_solr_inputs() { sha256sum "$PYTHON_BIN" /bin/busybox "$IMAGES_SRC/python.sh" "$IMAGES_SRC/init-solr.sh"; }

init_solr_rootfs() {
  local d=$1
  rootfs_init "$d"
  rootfs_busybox "$d"
  rootfs_user "$d" 10001 newsfeed
  python_rootfs "$d"
}

init_solr_config() {
  printf '%s\n' --user 10001:10001 --workdir /tmp --env HOME=/tmp --env PYTHONDONTWRITEBYTECODE=1 \
    --label "org.opencontainers.image.description=python $(python_version)"
}
