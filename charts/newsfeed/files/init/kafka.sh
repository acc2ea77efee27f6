#!/bin/sh
# kafka.sh check|apply: does a broker answer / create the events topic and the dead-letter topics, or grow the
# events topic's partitions, and set each topic's retention (idempotent); with SASL, as the admin, also give each
# service's user its SCRAM credential and ACLs (docs/kubernetes.md, "Store credentials").
# Environment: KAFKA_BOOTSTRAP_SERVERS KAFKA_TOPIC PARTITIONS REPLICATION_FACTOR RETENTION_MS DEAD_LETTER_TOPICS
# (space-separated) DEAD_LETTER_RETENTION_MS; with SASL KAFKA_SECURITY_PROTOCOL KAFKA_SASL_MECHANISM (SCRAM-SHA-*)
# KAFKA_SASL_USERNAME KAFKA_SASL_PASSWORD (the admin), {OUTBOUND,INBOUND,SEARCH,KAFKA_LAG_EXPORTER}_{USERNAME,PASSWORD}
# (the services' and the lag exporter's users, each optional), {INBOUND,SEARCH}_GROUP, {INBOUND,SEARCH}_DEAD_LETTER_TOPIC. Tools from /opt/kafka/bin
# (KAFKA_BIN: the charts suite's stand-ins).
set -eu
bin=${KAFKA_BIN:-/opt/kafka/bin}
servers=$KAFKA_BOOTSTRAP_SERVERS
umask 077
tmp=${TMPDIR:-/tmp}
admin_config=""

# a password goes into properties files and JAAS lines unescaped: allow only characters that mean nothing there
# (Bitnami splits its password lists on , ; and spaces too)
plain() {
  case $2 in
    '' | *[!A-Za-z0-9._~-]*) echo "kafka.sh: the password of $1 must be letters, digits and . _ ~ - only" >&2; exit 2 ;;
  esac
}

if [ -n "${KAFKA_SASL_USERNAME:-}" ]; then
  plain "$KAFKA_SASL_USERNAME" "$KAFKA_SASL_PASSWORD"
  admin_config=$tmp/admin.properties
  trap 'rm -f "$admin_config"' EXIT
  jaas="org.apache.kafka.common.security.scram.ScramLoginModule required"
  jaas="$jaas username=\"$KAFKA_SASL_USERNAME\" password=\"$KAFKA_SASL_PASSWORD\";"
  printf '%s\n' "security.protocol=$KAFKA_SECURITY_PROTOCOL" "sasl.mechanism=$KAFKA_SASL_MECHANISM" \
    "sasl.jaas.config=$jaas" > "$admin_config"
fi

# tool NAME ARG...: a Kafka tool against the brokers, as the admin when there is one
tool() {
  name=$1
  shift
  if [ -n "$admin_config" ]; then
    "$bin/$name" --bootstrap-server "$servers" --command-config "$admin_config" "$@"
  else
    "$bin/$name" --bootstrap-server "$servers" "$@"
  fi
}

# topic PARTITIONS RETENTION_MS: created when missing, its retention set on the topic either way
topic() {
  tool kafka-topics.sh --create --if-not-exists --topic "$1" \
    --partitions "$2" --replication-factor "$REPLICATION_FACTOR" --config "retention.ms=$3"
  tool kafka-configs.sh --alter --entity-type topics --entity-name "$1" --add-config "retention.ms=$3"
}

# user NAME PASSWORD: its SCRAM credential set to PASSWORD (made or replaced: a rotated Secret takes effect), read from
# a file so that the password is on no command line
user() {
  plain "$1" "$2"
  printf '%s=iterations=8192,password=%s\n' "$KAFKA_SASL_MECHANISM" "$2" > "$tmp/scram.properties"
  tool kafka-configs.sh --alter --entity-type users --entity-name "$1" --add-config-file "$tmp/scram.properties"
  rm -f "$tmp/scram.properties"
}

# allow USER ARG...: an ACL for User:USER (adding one that exists changes nothing)
allow() {
  who=$1
  shift
  tool kafka-acls.sh --add --allow-principal "User:$who" "$@" > /dev/null
}

# the services' users: outbound produces the events; inbound and search consume them in their own group and produce
# to their own dead-letter topic; nobody else may do anything (no ACL, no access). A user's ACLs come before its
# credential: a service that is already running logs in the moment the credential exists, and a consumer that joined
# its group before it could see the topic would be given no partition until its next metadata refresh.
service_users() {
  if [ -n "${OUTBOUND_USERNAME:-}" ]; then
    allow "$OUTBOUND_USERNAME" --operation Write --operation Describe --topic "$KAFKA_TOPIC"
    user "$OUTBOUND_USERNAME" "$OUTBOUND_PASSWORD"
  fi
  if [ -n "${INBOUND_USERNAME:-}" ]; then
    consumer "$INBOUND_USERNAME" "$INBOUND_PASSWORD" "$INBOUND_GROUP" "$INBOUND_DEAD_LETTER_TOPIC"
  fi
  if [ -n "${SEARCH_USERNAME:-}" ]; then
    consumer "$SEARCH_USERNAME" "$SEARCH_PASSWORD" "$SEARCH_GROUP" "$SEARCH_DEAD_LETTER_TOPIC"
  fi
  # the lag exporter (monitoring.kafkaLagExporter) reads every group's offsets and members and every topic's
  # offsets: Describe on all of them, nothing it could read a record or change anything with
  if [ -n "${KAFKA_LAG_EXPORTER_USERNAME:-}" ]; then
    allow "$KAFKA_LAG_EXPORTER_USERNAME" --operation Describe --topic '*' --group '*'
    user "$KAFKA_LAG_EXPORTER_USERNAME" "$KAFKA_LAG_EXPORTER_PASSWORD"
  fi
  tool kafka-acls.sh --list
}

# consumer USER PASSWORD GROUP DEAD_LETTER_TOPIC
consumer() {
  allow "$1" --operation Read --operation Describe --topic "$KAFKA_TOPIC"
  allow "$1" --operation Read --group "$3"
  allow "$1" --operation Write --operation Describe --topic "$4"
  user "$1" "$2"
}

case "$1" in
  check) tool kafka-broker-api-versions.sh > /dev/null ;;
  apply)
    topic "$KAFKA_TOPIC" "$PARTITIONS" "$RETENTION_MS"
    current=$(tool kafka-topics.sh --describe --topic "$KAFKA_TOPIC" |
      sed -n 's/.*PartitionCount: *\([0-9]*\).*/\1/p' | head -n 1)
    if [ -n "$current" ] && [ "$current" -lt "$PARTITIONS" ]; then
      tool kafka-topics.sh --alter --topic "$KAFKA_TOPIC" --partitions "$PARTITIONS"
    fi
    for dead_letters in $DEAD_LETTER_TOPICS; do
      topic "$dead_letters" 1 "$DEAD_LETTER_RETENTION_MS"
    done
    if [ -n "$admin_config" ]; then
      service_users
    fi
    tool kafka-topics.sh --describe --topic "$KAFKA_TOPIC"
    ;;
  *) echo "usage: $0 check|apply" >&2; exit 2 ;;
esac
