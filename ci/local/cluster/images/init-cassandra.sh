# The Cassandra init image: cqlsh from PyPI (pinned wheels, cqlsh-requirements.txt; Debian has no cqlsh and the
# local stack fetches Cassandra's jars, not its tarball) on python3 (python.sh), busybox for the init scripts,
# user 999 like library/cassandra.
# shellcheck shell=bash

CQLSH_VERSION=$(sed -n 's/^cqlsh==//p' "$IMAGES_SRC/cqlsh-requirements.txt")

init_cassandra_ref() { echo "localhost/newsfeed-init-cassandra:$APP_VERSION"; }
init_cassandra_inputs() {
  sha256sum "$PYTHON_BIN" /bin/busybox "$IMAGES_SRC/python.sh" "$IMAGES_SRC/init-cassandra.sh" "$IMAGES_SRC/cqlsh-requirements.txt"
}

# the wheels, downloaded once per requirements file for this interpreter's version and ABI
cqlsh_wheels() {
  local py; py=$("$PYTHON_BIN" -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")')
  local dir; dir=$IMAGES_CACHE/wheels-cp$py-$(sha256sum "$IMAGES_SRC/cqlsh-requirements.txt" | cut -c1-12)
  if [ ! -f "$dir/.done" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    # any local pip can fetch them: the target interpreter's version, ABI and platform are given explicitly
    "${NEWSFEED_PIP_PYTHON:-python3}" -m pip download -q --disable-pip-version-check --no-deps -d "$dir" \
      --only-binary=:all: --platform manylinux2014_x86_64 --python-version "$py" --implementation cp --abi "cp$py" \
      -r "$IMAGES_SRC/cqlsh-requirements.txt" >&2
    touch "$dir/.done"
  fi
  echo "$dir"
}

init_cassandra_rootfs() {
  local d=$1 wheels site=/usr/lib/python3/dist-packages
  wheels=$(cqlsh_wheels) || return 1
  rootfs_init "$d"
  rootfs_busybox "$d"
  rootfs_user "$d" 999 cassandra
  python_rootfs "$d"
  "${NEWSFEED_PIP_PYTHON:-python3}" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --no-index \
    --no-compile --target "$d$site" "$wheels"/*.whl >&2
  rm -rf "${d:?}$site/bin"   # console scripts with this machine's interpreter path; cqlsh is written below
  # shellcheck disable=SC2046   # the drivers' C extensions and the libraries their wheels bundle
  rootfs_libs "$d" $(find "$d$site" -name '*.so*' -type f)
  printf '#!/usr/bin/python3\nimport sys\nfrom cqlshlib.__main__ import main\nsys.exit(main())\n' > "$d/usr/bin/cqlsh"
  chmod 0755 "$d/usr/bin/cqlsh"
}

init_cassandra_config() {
  printf '%s\n' --user 999:999 --workdir /tmp --env HOME=/tmp --env PYTHONDONTWRITEBYTECODE=1 \
    --label "org.opencontainers.image.description=cqlsh $CQLSH_VERSION, python $(python_version)"
}
