# The five service images and the Kafka lag exporter's (the chart's `monitoring.kafkaLagExporter`), the
# registry-free twin of services/Dockerfile's runtime stage: the JRE (jre.sh), user newsfeed 10001:10001,
# WORKDIR /app, /app/service.jar, port 8080, HTTP_PORT=8080 and the same ENTRYPOINT.
# ci/local/cluster/dockerfile-check.py compares this config with the Dockerfile on every build of the release suite.
# shellcheck shell=bash disable=SC2034   # SERVICES is read by images.sh

SERVICES=(social-graph outbound inbound search edge kafka-lag-exporter)

service_jar() { echo "$REPO_ROOT/services/$1/target/$1.jar"; }
service_ref() { echo "localhost/newsfeed-$1:$APP_VERSION"; }
service_inputs() { sha256sum "$(service_jar "$1")" "$IMAGES_SRC/jre.sh" "$IMAGES_SRC/service.sh" "$JDK_HOME/release"; }

service_rootfs() {
  local d=$2 jar; jar=$(service_jar "$1")
  [ -f "$jar" ] || { echo "$jar missing: mvn -q -f services/pom.xml package -DskipTests" >&2; return 1; }
  rootfs_init "$d"
  jre_rootfs "$d"
  rootfs_user "$d" 10001 newsfeed
  mkdir -p "$d/app"
  install -m 0644 "$jar" "$d/app/service.jar"
}

# the image config, one oci-image.py option per line (kept equal to the Dockerfile: see the check above)
service_config() {
  local svc=$1
  printf '%s\n' --entrypoint '["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/service.jar"]' \
    --user 10001:10001 --workdir /app --expose 8080/tcp --env HTTP_PORT=8080 --env JAVA_HOME=/usr/lib/jvm/jre \
    --label "org.opencontainers.image.title=newsfeed-$svc" \
    --label "org.opencontainers.image.description=newsfeed $svc service" \
    --label "org.opencontainers.image.version=$APP_VERSION"
}
