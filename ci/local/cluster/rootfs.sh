# Helpers that lay down an image root filesystem from this machine's own files (sourced by ci/local/cluster/images/*.sh):
# a merged-/usr skeleton, ELF binaries with exactly the shared libraries ldd resolves for them, busybox for the
# POSIX shell the chart's scripts need, and /etc/passwd naming the one user the image runs as.
# No base image: what is in a rootfs is what these functions put there.
# shellcheck shell=bash

# rootfs_init DIR: an empty merged-/usr tree (Debian 12 layout: /lib, /bin ... link into /usr) with a sticky /tmp
rootfs_init() {
  local d=$1
  rm -rf "$d"
  mkdir -p "$d/usr/bin" "$d/usr/lib" "$d/usr/lib64" "$d/usr/sbin" "$d/etc" "$d/tmp"
  ln -s usr/bin "$d/bin"; ln -s usr/lib "$d/lib"; ln -s usr/lib64 "$d/lib64"; ln -s usr/sbin "$d/sbin"
  chmod 1777 "$d/tmp"
}

# rootfs_libs DIR FILE...: every system shared library (/lib, /usr/lib) ldd resolves for the ELF files, copied
# to the same path (symlinks followed: one file per library name). Libraries found through an RPATH beside the
# file (the JRE's own) come with the file's tree. Scripts and static binaries add nothing.
rootfs_libs() {
  local d=$1 f lib; shift
  for f in "$@"; do
    [ "$(head -c 4 "$f" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    while read -r lib; do
      [ -e "$d$lib" ] && continue
      mkdir -p "$d$(dirname "$lib")"
      cp -L "$lib" "$d$lib"
    done < <(ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\/(usr\/)?lib/ {print $3} $1 ~ /^\/(usr\/)?lib/ {print $1}')
  done
}

# rootfs_elf DIR SRC [DEST]: an ELF binary at DEST (default: its own path) plus its libraries
rootfs_elf() {
  local d=$1 src=$2 dest=${3:-$2}
  mkdir -p "$d$(dirname "$dest")"
  cp -L "$src" "$d$dest"
  rootfs_libs "$d" "$src"
}

# rootfs_busybox DIR: Debian's busybox-static (no libraries) as /bin/sh and its applets (sed, date, sleep, ...)
rootfs_busybox() {
  local d=$1 a
  [ -x /bin/busybox ] || { echo "rootfs: /bin/busybox missing: apt-get install busybox-static" >&2; return 1; }
  cp /bin/busybox "$d/usr/bin/busybox"
  for a in $(/bin/busybox --list); do
    [ -e "$d/usr/bin/$a" ] || ln -s busybox "$d/usr/bin/$a"
  done
}

# rootfs_user DIR UID NAME: /etc/passwd and /etc/group with root and NAME (uid = gid = UID, home /tmp), so tools
# that look their user up (libpq, the JVM's user.home, Python's getpass) find one
rootfs_user() {
  local d=$1 uid=$2 name=$3
  printf 'root:x:0:0:root:/root:/sbin/nologin\n%s:x:%s:%s:%s:/tmp:/sbin/nologin\n' "$name" "$uid" "$uid" "$name" > "$d/etc/passwd"
  printf 'root:x:0:\n%s:x:%s:\n' "$name" "$uid" > "$d/etc/group"
}

# rootfs_isolated DIR CMD...: CMD, a command of this machine, in network (loopback only), mount and PID namespaces of
# its own with DIR/proc and DIR/dev mounted, so that `chroot DIR PROGRAM` inside it runs an image's program much as a
# container would: nothing of the machine answers on its ports, and its mounts and processes end with CMD (the mount
# namespace is private: /dev bound there never shows outside it). Needs root.
rootfs_isolated() {
  local d=$1 rc=0; shift
  mkdir -p "$d/proc" "$d/dev"
  # shellcheck disable=SC2016   # expanded by the inner bash
  unshare --net --mount --pid --fork --kill-child bash -c '
    d=$1; shift
    ip link set lo up && mount -t proc proc "$d/proc" && mount --rbind /dev "$d/dev" || exit 1
    exec "$@"' _ "$d" "$@" || rc=$?
  rmdir "$d/proc" "$d/dev" 2> /dev/null || true
  return "$rc"
}

# rootfs_size DIR: bytes in the tree (for the build log)
rootfs_size() { du -sb "$1" | cut -f1; }
