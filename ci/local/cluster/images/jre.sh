# The Java runtime of the JVM images: jlink of this machine's JDK 17 (its jmods), cached per JDK release and
# module list, then laid into a rootfs at /usr/lib/jvm/jre with /usr/bin/java and the libraries ldd finds.
# shellcheck shell=bash

JDK_HOME=${NEWSFEED_JDK_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
# jdeps --print-module-deps of the service jars, the Kafka lag exporter's (its HTTP server: jdk.httpserver) and
# kafka-tools, plus what they reach by reflection or service loading (EC for TLS, DNS naming, zipfs, HTTP client)
JRE_MODULES=java.base,java.compiler,java.desktop,java.logging,java.management,java.naming,java.net.http,java.security.jgss,java.security.sasl,java.sql,java.xml,jdk.crypto.ec,jdk.httpserver,jdk.jfr,jdk.management,jdk.naming.dns,jdk.unsupported,jdk.zipfs
# native parts of java.desktop a headless server never loads; without them no X11/sound/font library is needed
JRE_EXCLUDE='**/libawt_xawt.so,**/libsplashscreen.so,**/libjsound.so,**/libfontmanager.so,**/libjawt.so'
# --generate-cds-archive: the JDK's own class-data archive (lib/server/classes.jsa), which a jlinked runtime lacks
# otherwise; the services' archives (service.sh) are made on top of it
JLINK_OPTIONS=(--strip-debug --no-man-pages --no-header-files --compress=2 --generate-cds-archive)

jre_version() { sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$JDK_HOME/release"; }

# jre_dir: the cached jlink output (built once per JDK release + module list)
jre_dir() {
  local key; key=$(printf '%s %s %s %s' "$(cat "$JDK_HOME/release")" "$JRE_MODULES" "$JRE_EXCLUDE" "${JLINK_OPTIONS[*]}" | sha256sum | cut -c1-12)
  local dir; dir=$IMAGES_CACHE/jre-$(jre_version)-$key
  if [ ! -x "$dir/bin/java" ]; then
    [ -d "$JDK_HOME/jmods" ] || { echo "jre: $JDK_HOME/jmods missing (the JDK package, not a JRE)" >&2; return 1; }
    rm -rf "$dir"
    "$JDK_HOME/bin/jlink" --module-path "$JDK_HOME/jmods" --add-modules "$JRE_MODULES" --output "$dir" \
      "${JLINK_OPTIONS[@]}" --exclude-files="$JRE_EXCLUDE" >&2
  fi
  echo "$dir"
}

# jre_rootfs DIR: the runtime at /usr/lib/jvm/jre, `java` on PATH, its libraries (glibc dlopens libgcc_s for
# thread cancellation, so it is added even where ldd does not list it)
jre_rootfs() {
  local d=$1 src; src=$(jre_dir) || return 1
  mkdir -p "$d/usr/lib/jvm"
  cp -a "$src" "$d/usr/lib/jvm/jre"
  ln -s ../lib/jvm/jre/bin/java "$d/usr/bin/java"
  # shellcheck disable=SC2046   # one argument per ELF file
  rootfs_libs "$d" $(find "$src" -type f \( -name '*.so' -o -path '*/bin/*' \))
  mkdir -p "$d/usr/lib/x86_64-linux-gnu"
  [ -e "$d/usr/lib/x86_64-linux-gnu/libgcc_s.so.1" ] || cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$d/usr/lib/x86_64-linux-gnu/"
}
