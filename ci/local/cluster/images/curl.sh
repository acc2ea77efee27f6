# The `helm test` image: Debian's curl with its libraries and busybox for the tests' `sh -c`, user 100 like
# curlimages/curl. The tests call the services over plain HTTP, so no CA bundle is shipped.
# shellcheck shell=bash

curl_ref() { echo "localhost/newsfeed-curl:$APP_VERSION"; }
curl_inputs() { sha256sum "$(command -v curl)" /bin/busybox "$IMAGES_SRC/curl.sh"; }

curl_rootfs() {
  local d=$1
  rootfs_init "$d"
  rootfs_busybox "$d"
  rootfs_user "$d" 100 curl_user
  rootfs_elf "$d" "$(command -v curl)" /usr/bin/curl
}

curl_config() {
  printf '%s\n' --user 100:100 --workdir /tmp --label "org.opencontainers.image.description=$(curl --version | head -n 1)"
}
