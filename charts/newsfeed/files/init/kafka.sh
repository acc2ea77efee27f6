#!/bin/sh
# kafka.sh check|apply: does a broker answer / create the events topic and the dead-letter topics, or grow the
# events topic's partitions, and set each topic's retention (idempotent).
# Environment: KAFKA_BOOTSTRAP_SERVERS KAFKA_TOPIC PARTITIONS REPLICATION_FACTOR RETENTION_MS DEAD_LETTER_TOPICS
# (space-separated) DEAD_LETTER_RETENTION_MS. Tools from /opt/kafka/bin.
set -eu
bin=/opt/kafka/bin
servers=$KAFKA_BOOTSTRAP_SERVERS

# topic PARTITIONS RETENTION_MS: created when missing, its retention set on the topic either way
topic() {
  "$bin/kafka-topics.sh" --bootstrap-server "$servers" --create --if-not-exists --topic "$1" \
    --partitions "$2" --replication-factor "$REPLICATION_FACTOR" --config "retention.ms=$3"
  "$bin/kafka-configs.sh" --bootstrap-server "$servers" --alter --entity-type topics --entity-name "$1" \
    --add-config "retention.ms=$3"
}

case "$1" in
  check) "$bin/kafka-broker-api-versions.sh" --bootstrap-server "$servers" > /dev/null ;;
  apply)
    topic "$KAFKA_TOPIC" "$PARTITIONS" "$RETENTION_MS"
    current=$("$bin/kafka-topics.sh" --bootstrap-server "$servers" --describe --topic "$KAFKA_TOPIC" |
      sed -n 's/.*PartitionCount: *\([0-9]*\).*/\1/p' | head -n 1)
    if [ -n "$current" ] && [ "$current" -lt "$PARTITIONS" ]; then
      "$bin/kafka-topics.sh" --bootstrap-server "$servers" --alter --topic "$KAFKA_TOPIC" --partitions "$PARTITIONS"
    fi
    for dead_letters in $DEAD_LETTER_TOPICS; do
      topic "$dead_letters" 1 "$DEAD_LETTER_RETENTION_MS"
    done
    "$bin/kafka-topics.sh" --bootstrap-server "$servers" --describe --topic "$KAFKA_TOPIC"
    ;;
  *) echo "usage: $0 check|apply" >&2; exit 2 ;;
esac
