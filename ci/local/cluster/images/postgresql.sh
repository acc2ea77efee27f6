# The PostgreSQL image CloudNativePG runs (the node profile's postgresql.cluster.imageName): Debian's
# postgresql-15 server, what the operator's instance manager calls on PATH (postgres, initdb, pg_ctl,
# pg_controldata, pg_basebackup, pg_rewind, ...), the extension modules, the share dir and the system time zones it
# was built against, user postgres 26 like the operator's own images. Tagged with the server's version, from which
# the operator reads the major version. busybox gives /bin/sh: initdb and pg_ctl run the server through popen(3)
# and system(3). Left out: the LLVM JIT provider (libLLVM alone is ~100 MB; without it PostgreSQL runs with JIT
# unavailable).
# shellcheck shell=bash

PG_SERVER_HOME=${PG_SERVER_HOME:-/usr/lib/postgresql/15}
PG_SERVER_SHARE=${PG_SERVER_SHARE:-/usr/share/postgresql/15}

# the upstream version of the Debian build, e.g. 15.18 of "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
postgresql_version() { "$PG_SERVER_HOME/bin/postgres" -V | awk '{print $3}'; }
postgresql_ref() { echo "localhost/newsfeed-postgresql:$(postgresql_version)"; }
postgresql_inputs() {
  [ -x "$PG_SERVER_HOME/bin/postgres" ] || { echo "$PG_SERVER_HOME/bin/postgres missing: apt-get install postgresql-15" >&2; return 1; }
  sha256sum "$PG_SERVER_HOME"/bin/* /bin/busybox "$IMAGES_SRC/postgresql.sh"
}

postgresql_rootfs() {
  local d=$1 f
  rootfs_init "$d"
  rootfs_busybox "$d"
  rootfs_user "$d" 26 postgres
  mkdir -p "$d$PG_SERVER_HOME/bin" "$d$PG_SERVER_HOME/lib" "$d/usr/share/postgresql" "$d/usr/share/zoneinfo"
  for f in "$PG_SERVER_HOME"/bin/*; do
    if [ -L "$f" ]; then cp -P "$f" "$d$f"; else rootfs_elf "$d" "$f"; fi   # postmaster -> postgres
  done
  for f in "$PG_SERVER_HOME"/lib/*.so; do
    case $(basename "$f") in llvmjit*) continue ;; esac
    rootfs_elf "$d" "$f"
  done
  cp -r "$PG_SERVER_SHARE" "$d/usr/share/postgresql/"
  cp -r /usr/share/zoneinfo/. "$d/usr/share/zoneinfo/"
  rm -f "$d/usr/share/zoneinfo/localtime"   # -> /etc/localtime of the build machine
}

postgresql_config() {
  printf '%s\n' --user 26:26 --workdir /tmp --env "PATH=$PG_SERVER_HOME/bin:/usr/bin" --env HOME=/tmp \
    --label "org.opencontainers.image.description=$("$PG_SERVER_HOME/bin/postgres" -V)"
}
