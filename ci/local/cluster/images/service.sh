# The five service images and the Kafka lag exporter's (the chart's `monitoring.kafkaLagExporter`), the
# registry-free twin of services/Dockerfile's runtime stage: the JRE (jre.sh), user newsfeed 10001:10001,
# WORKDIR /app, /app/service.jar, its class-data archive /app/service.jsa, port 8080, HTTP_PORT=8080 and the same
# ENTRYPOINT.
# ci/local/cluster/check-image-config.py compares this config with the Dockerfile on every build of the release suite.
# shellcheck shell=bash disable=SC2034   # SERVICES is read by images.sh

SERVICES=(social-graph outbound inbound search edge kafka-lag-exporter)

service_jar() { echo "$REPO_ROOT/services/$1/target/$1.jar"; }
service_ref() { echo "localhost/newsfeed-$1:$APP_VERSION"; }
service_inputs() {
  sha256sum "$(service_jar "$1")" "$IMAGES_SRC/jre.sh" "$IMAGES_SRC/service.sh" "$JDK_HOME/release" \
    "$REPO_ROOT/services/class-data-archive.sh"
}

service_rootfs() {
  local d=$2 jar; jar=$(service_jar "$1")
  [ -f "$jar" ] || { echo "$jar missing: mvn -q -f services/pom.xml package -DskipTests" >&2; return 1; }
  rootfs_init "$d"
  jre_rootfs "$d"
  rootfs_user "$d" 10001 newsfeed
  mkdir -p "$d/app"
  install -m 0644 "$jar" "$d/app/service.jar"
  # the archive checks the jar's size and modification time: the time it will have in the image (oci-image.py's 0)
  touch -d @0 "$d/app/service.jar"
  service_class_archive "$d"
}

# service_class_archive DIR: /app/service.jsa made and mapped once by services/class-data-archive.sh with the image's
# own JRE and jar at their paths, in a chroot of DIR isolated from the machine (rootfs_isolated)
service_class_archive() {
  local d=$1 java=/usr/lib/jvm/jre/bin/java
  # the training run's flags: the ENTRYPOINT's with the archive written at exit and a fixed heap (on a machine with
  # a lot of memory, 75 % of it would turn compressed object pointers off, and no pod would map the archive)
  local train=("$java" -XX:ArchiveClassesAtExit=/app/service.jsa -Xmx512m -XX:+ExitOnOutOfMemoryError -jar /app/service.jar)
  rootfs_isolated "$d" bash "$REPO_ROOT/services/class-data-archive.sh" "$d/app/service.jsa" chroot "$d" "${train[@]}" >&2 ||
    { echo "$d: no class-data archive the image's JVM maps" >&2; return 1; }
}

# the image config, one oci-image.py option per line (kept equal to the Dockerfile: see the check above)
service_config() {
  local svc=$1
  printf '%s\n' --entrypoint '["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-XX:SharedArchiveFile=/app/service.jsa", "-jar", "/app/service.jar"]' \
    --user 10001:10001 --workdir /app --expose 8080/tcp --env HTTP_PORT=8080 --env JAVA_HOME=/usr/lib/jvm/jre \
    --label "org.opencontainers.image.title=newsfeed-$svc" \
    --label "org.opencontainers.image.description=newsfeed $svc service" \
    --label "org.opencontainers.image.version=$APP_VERSION"
}
