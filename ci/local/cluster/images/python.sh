# A Python 3 rootfs from this machine's Debian python3.11 (interpreter, standard library and its extension
# modules with their libraries), for the Solr and Cassandra init images. Tests, IDLE, Tk and pip are left out.
# shellcheck shell=bash

PYTHON_BIN=${NEWSFEED_IMAGE_PYTHON:-/usr/bin/python3.11}

python_version() { "$PYTHON_BIN" -c 'import platform; print(platform.python_version())'; }
python_stdlib() { "$PYTHON_BIN" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'; }

python_rootfs() {
  local d=$1 lib; lib=$(python_stdlib)
  [ -x "$PYTHON_BIN" ] || { echo "$PYTHON_BIN missing: apt-get install python3-minimal" >&2; return 1; }
  rootfs_elf "$d" "$PYTHON_BIN" /usr/bin/python3
  mkdir -p "$d$lib" "$d/usr/lib/python3/dist-packages"
  # -L: Debian links a few stdlib files to /etc; dangling links (sitecustomize) are skipped
  (cd "$lib" && find . \( -name test -o -name tests -o -name idlelib -o -name tkinter -o -name turtledemo \
      -o -name ensurepip -o -name lib2to3 -o -name '__pycache__' -o -name 'config-3*' \) -prune -o \
      \( -type f -o -type l \) -print | while read -r f; do
        [ -e "$f" ] || continue
        mkdir -p "$d$lib/$(dirname "$f")"; cp -L "$f" "$d$lib/$f"
      done)
  # shellcheck disable=SC2046   # one argument per extension module
  rootfs_libs "$d" $(find "$d$lib/lib-dynload" -name '*.so')
}
