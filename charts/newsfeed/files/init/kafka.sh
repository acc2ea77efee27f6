#!/bin/sh
# kafka.sh check|apply: does a broker answer / create the topic, or grow its partitions (idempotent).
# Environment: KAFKA_BOOTSTRAP_SERVERS KAFKA_TOPIC PARTITIONS REPLICATION_FACTOR. Tools from /opt/kafka/bin.
set -eu
bin=/opt/kafka/bin
case "$1" in
  check) "$bin/kafka-broker-api-versions.sh" --bootstrap-server "$KAFKA_BOOTSTRAP_SERVERS" > /dev/null ;;
  apply)
    "$bin/kafka-topics.sh" --bootstrap-server "$KAFKA_BOOTSTRAP_SERVERS" --create --if-not-exists \
      --topic "$KAFKA_TOPIC" --partitions "$PARTITIONS" --replication-factor "$REPLICATION_FACTOR"
    current=$("$bin/kafka-topics.sh" --bootstrap-server "$KAFKA_BOOTSTRAP_SERVERS" --describe --topic "$KAFKA_TOPIC" |
      sed -n 's/.*PartitionCount: *\([0-9]*\).*/\1/p' | head -n 1)
    if [ -n "$current" ] && [ "$current" -lt "$PARTITIONS" ]; then
      "$bin/kafka-topics.sh" --bootstrap-server "$KAFKA_BOOTSTRAP_SERVERS" --alter --topic "$KAFKA_TOPIC" \
        --partitions "$PARTITIONS"
    fi
    "$bin/kafka-topics.sh" --bootstrap-server "$KAFKA_BOOTSTRAP_SERVERS" --describe --topic "$KAFKA_TOPIC"
    ;;
  *) echo "usage: $0 check|apply" >&2; exit 2 ;;
esac
