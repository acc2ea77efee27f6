# Kafka 4.4.0 as a single KRaft node (broker + controller in one JVM, main class kafka.Kafka), jars from
# ~/.cache/newsfeed/stores/kafka-<version>/lib. Storage is formatted once per run dir.
# shellcheck shell=bash

kafka_home() { echo "$STORES_CACHE/kafka-$KAFKA_VERSION"; }

kafka_tool() {
  java "${SHORT_JVM_OPTS[@]}" -Dlog4j2.configurationFile="$STACK_DIR/kafka/log4j2-tools.properties" \
    -cp "$(compile_tool kafka KafkaTool):$(kafka_home)/lib/*" KafkaTool "$@"
}

kafka_write_config() {
  local dir=$STACK_DIR/kafka
  cat > "$dir/server.properties" <<CONF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$STACK_HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$STACK_HOST:$KAFKA_PORT,CONTROLLER://$STACK_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$STACK_HOST:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/data
num.partitions=$KAFKA_PARTITIONS
default.replication.factor=1
# topics are created explicitly (ci/local/stack.sh up, the chart): a typo must not invent a topic
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=6
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=24
log.segment.bytes=67108864
CONF
  local layout='[%d] %p %m (%c)%n'
  cat > "$dir/log4j2.properties" <<CONF
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = $layout
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = OUT
logger.state.name = state.change.logger
logger.state.level = WARN
CONF
  sed 's/^rootLogger.level = INFO/rootLogger.level = WARN/' "$dir/log4j2.properties" > "$dir/log4j2-tools.properties"
}

kafka_start() {
  local dir=$STACK_DIR/kafka; mkdir -p "$dir"
  kafka_write_config
  local cp; cp="$(kafka_home)/lib/*"
  if [ ! -f "$dir/data/meta.properties" ]; then
    # a URL-safe base64 UUID as Kafka makes them; one that starts with '-' (1 in 64) would be read as an option
    local cluster_id=-
    while [[ $cluster_id == -* ]]; do cluster_id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '='); done
    java -Xmx256m -Dlog4j2.configurationFile="$dir/log4j2-tools.properties" -cp "$cp" kafka.tools.StorageTool \
      format -t "$cluster_id" -c "$dir/server.properties" >> "$(store_log kafka)" 2>&1 \
      || die "kafka storage format failed, see $(store_log kafka)"
  fi
  local pid
  pid=$(spawn kafka java -Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$dir/log4j2.properties" -Dkafka.logs.dir="$dir" \
    -cp "$cp" kafka.Kafka "$dir/server.properties")
  record_pid kafka "$pid"
}

kafka_ready() { port_open "$KAFKA_PORT" && kafka_tool ready "$STACK_HOST:$KAFKA_PORT"; }

# the events topic and one dead-letter topic per group (<topic>.<group>.dead-letter, as the services name them),
# each with its retention set on the topic
kafka_schema() {
  local group
  kafka_tool create-topic "$STACK_HOST:$KAFKA_PORT" "$KAFKA_TOPIC" "$KAFKA_PARTITIONS" "$KAFKA_RETENTION_MS" >/dev/null
  for group in $KAFKA_GROUPS; do
    kafka_tool create-topic "$STACK_HOST:$KAFKA_PORT" "$KAFKA_TOPIC.$group.dead-letter" 1 \
      "$KAFKA_DEAD_LETTER_RETENTION_MS" >/dev/null
  done
}

kafka_stop_signal() { echo TERM; }
