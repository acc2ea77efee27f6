# The Kafka init image: the JRE (jre.sh), kafka-tools and its jars at the local stack's Kafka version
# (kafka-tools/pom.xml, from Maven Central), and at /opt/kafka/bin the four commands files/init/kafka.sh runs,
# each the distribution's one-line script over a launcher cut down from kafka-run-class.sh; user 1000 like
# apache/kafka. The Kafka distribution tarball is not on any registry this build may use.
# shellcheck shell=bash

KAFKA_TOOLS_POM=$IMAGES_SRC/kafka-tools/pom.xml
kafka_tools_version() { sed -n 's|.*<artifactId>kafka-tools</artifactId><version>\([^<]*\)</version>.*|\1|p' "$KAFKA_TOOLS_POM"; }

init_kafka_ref() { echo "localhost/newsfeed-init-kafka:$APP_VERSION"; }
init_kafka_inputs() {
  sha256sum "$KAFKA_TOOLS_POM" /bin/busybox "$IMAGES_SRC/jre.sh" "$IMAGES_SRC/init-kafka.sh" "$JDK_HOME/release"
}

# the jars, fetched once per pom
kafka_tools_lib() {
  local dir; dir=$IMAGES_CACHE/kafka-tools-$(sha256sum "$KAFKA_TOOLS_POM" | cut -c1-12)
  if [ ! -f "$dir/.done" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    mvn -B -q -Dstyle.color=never -f "$KAFKA_TOOLS_POM" \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies -DincludeScope=runtime \
      -DoutputDirectory="$dir/lib" >&2
    touch "$dir/.done"
  fi
  echo "$dir/lib"
}

init_kafka_rootfs() {
  local d=$1 lib; lib=$(kafka_tools_lib) || return 1
  rootfs_init "$d"
  rootfs_busybox "$d"
  rootfs_user "$d" 1000 kafka
  jre_rootfs "$d"
  mkdir -p "$d/opt/kafka/bin" "$d/opt/kafka/config"
  cp -r "$lib" "$d/opt/kafka/libs"
  cat > "$d/opt/kafka/config/tools-log4j2.properties" <<'CONF'
status = warn
appender.err.type = Console
appender.err.name = ERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = ERR
CONF
  # KAFKA_HEAP_OPTS as the distribution's launcher; a short-lived client JVM starts faster with C1 only
  cat > "$d/opt/kafka/bin/kafka-run-class.sh" <<'SH'
#!/bin/sh
# kafka-run-class.sh CLASS [ARG...]: the distribution's launcher reduced to the command-line tools
# shellcheck disable=SC2086   # KAFKA_HEAP_OPTS holds several options
exec java ${KAFKA_HEAP_OPTS:--Xmx256m} -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
  -Dlog4j2.configurationFile=/opt/kafka/config/tools-log4j2.properties -cp '/opt/kafka/libs/*' "$@"
SH
  printf '#!/bin/sh\nexec "$(dirname "$0")/kafka-run-class.sh" org.apache.kafka.tools.TopicCommand "$@"\n' \
    > "$d/opt/kafka/bin/kafka-topics.sh"
  printf '#!/bin/sh\nexec "$(dirname "$0")/kafka-run-class.sh" org.apache.kafka.tools.BrokerApiVersionsCommand "$@"\n' \
    > "$d/opt/kafka/bin/kafka-broker-api-versions.sh"
  printf '#!/bin/sh\nexec "$(dirname "$0")/kafka-run-class.sh" org.apache.kafka.tools.ConfigCommand "$@"\n' \
    > "$d/opt/kafka/bin/kafka-configs.sh"
  printf '#!/bin/sh\nexec "$(dirname "$0")/kafka-run-class.sh" org.apache.kafka.tools.AclCommand "$@"\n' \
    > "$d/opt/kafka/bin/kafka-acls.sh"
  chmod 0755 "$d"/opt/kafka/bin/*.sh
}

init_kafka_config() {
  printf '%s\n' --user 1000:1000 --workdir /tmp --env HOME=/tmp --env JAVA_HOME=/usr/lib/jvm/jre \
    --label "org.opencontainers.image.description=kafka-tools $(kafka_tools_version), java $(jre_version)"
}
