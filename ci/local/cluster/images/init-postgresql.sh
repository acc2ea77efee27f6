# The PostgreSQL init image: Debian's psql and pg_isready (postgresql-client-15, the binaries behind the
# /usr/bin wrappers, which are Perl) with their libraries, busybox for files/init/*.sh, user 26 like the
# CloudNativePG image the chart defaults to.
# shellcheck shell=bash

PG_CLIENT_BIN=${PG_CLIENT_BIN:-/usr/lib/postgresql/15/bin}

init_postgresql_ref() { echo "localhost/newsfeed-init-postgresql:$APP_VERSION"; }
init_postgresql_inputs() { sha256sum "$PG_CLIENT_BIN/psql" "$PG_CLIENT_BIN/pg_isready" /bin/busybox "$IMAGES_SRC/init-postgresql.sh"; }

init_postgresql_rootfs() {
  local d=$1 tool
  rootfs_init "$d"
  rootfs_busybox "$d"
  rootfs_user "$d" 26 postgres
  for tool in psql pg_isready; do
    [ -x "$PG_CLIENT_BIN/$tool" ] || { echo "$PG_CLIENT_BIN/$tool missing: apt-get install postgresql-client-15" >&2; return 1; }
    rootfs_elf "$d" "$PG_CLIENT_BIN/$tool" "/usr/bin/$tool"
  done
}

init_postgresql_config() {
  printf '%s\n' --user 26:26 --workdir /tmp --env HOME=/tmp \
    --label "org.opencontainers.image.description=$("$PG_CLIENT_BIN/psql" --version)"
}
