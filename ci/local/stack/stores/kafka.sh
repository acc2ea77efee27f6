# Kafka 4.4.0 as a single KRaft node (broker + controller in one JVM, main class kafka.Kafka), jars from
# ~/.cache/newsfeed/stores/kafka-<version>/lib. Storage is formatted once per run dir.
# With NEWSFEED_STACK_AUTH=true, as the chart's Kafka with storeAuth: clients and the broker itself speak
# SASL_PLAINTEXT with SCRAM-SHA-512, the controller listener SASL PLAIN (a KRaft controller cannot use SCRAM), the
# StandardAuthorizer denies whatever no ACL allows; super users are the admin (SCRAM credential bootstrapped when the
# storage is formatted) and the controller's own user.
# shellcheck shell=bash

KAFKA_ADMIN_USER="admin"
KAFKA_CONTROLLER_USER=controller

kafka_home() { echo "$STORES_CACHE/kafka-$KAFKA_VERSION"; }

# the admin's client settings (KafkaTool reads them from KAFKA_CLIENT_CONFIG), a file only we can read
kafka_admin_config() { echo "$STACK_DIR/secrets/kafka-admin.properties"; }

kafka_tool() {
  local config=
  ! stack_auth || config=$(kafka_admin_config)
  KAFKA_CLIENT_CONFIG=$config java "${SHORT_JVM_OPTS[@]}" \
    -Dlog4j2.configurationFile="$STACK_DIR/kafka/log4j2-tools.properties" \
    -cp "$(compile_tool kafka KafkaTool):$(kafka_home)/lib/*" KafkaTool "$@"
}

kafka_admin_env() {
  echo "KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT"
  echo "KAFKA_SASL_MECHANISM=SCRAM-SHA-512"
  echo "KAFKA_SASL_USERNAME=$KAFKA_ADMIN_USER"
  echo "KAFKA_SASL_PASSWORD=$(stack_secret kafka-admin)"
}

kafka_jaas() {  # kafka_jaas MODULE USER PASSWORD [EXTRA]: one sasl.jaas.config value
  echo "org.apache.kafka.common.security.$1 required username=\"$2\" password=\"$3\"${4:+ $4};"
}

kafka_listener_config() {
  if ! stack_auth; then
    cat <<CONF
listeners=PLAINTEXT://$STACK_HOST:$KAFKA_PORT,CONTROLLER://$STACK_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$STACK_HOST:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
CONF
    return
  fi
  local admin controller
  admin=$(stack_secret kafka-admin); controller=$(stack_secret kafka-controller)
  cat <<CONF
listeners=SASL_PLAINTEXT://$STACK_HOST:$KAFKA_PORT,CONTROLLER://$STACK_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=SASL_PLAINTEXT://$STACK_HOST:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=SASL_PLAINTEXT
listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_plaintext.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=$(kafka_jaas scram.ScramLoginModule "$KAFKA_ADMIN_USER" "$admin")
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=$(kafka_jaas plain.PlainLoginModule "$KAFKA_CONTROLLER_USER" "$controller" "user_$KAFKA_CONTROLLER_USER=\"$controller\"")
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:$KAFKA_ADMIN_USER;User:$KAFKA_CONTROLLER_USER
allow.everyone.if.no.acl.found=false
CONF
}

kafka_write_admin_config() {
  local f; f=$(kafka_admin_config)
  stack_secret kafka-admin >/dev/null   # makes the secrets dir
  (umask 077; printf '%s\n' security.protocol=SASL_PLAINTEXT sasl.mechanism=SCRAM-SHA-512 \
    "sasl.jaas.config=$(kafka_jaas scram.ScramLoginModule "$KAFKA_ADMIN_USER" "$(stack_secret kafka-admin)")" > "$f")
}

kafka_write_config() {
  local dir=$STACK_DIR/kafka
  # the file holds the JAAS passwords in auth mode
  (umask 077; { cat <<CONF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$STACK_HOST:$KAFKA_CONTROLLER_PORT
$(kafka_listener_config)
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
  } > "$dir/server.properties")
  ! stack_auth || kafka_write_admin_config
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

# kafka_format_args CLUSTER_ID: the StorageTool command as a java argument file (mode 600, one quoted argument a
# line), so that the admin's password, bootstrapped as its SCRAM credential in auth mode, is on no command line;
# prints its path
kafka_format_args() {
  local f=$STACK_DIR/kafka/format.args
  (umask 077; {
    printf '"%s"\n' kafka.tools.StorageTool format -t "$1" -c "$STACK_DIR/kafka/server.properties"
    ! stack_auth || printf '"%s"\n' --add-scram \
      "SCRAM-SHA-512=[name=$KAFKA_ADMIN_USER,password=$(stack_secret kafka-admin)]"
  } > "$f")
  echo "$f"
}

kafka_start() {
  local dir=$STACK_DIR/kafka; mkdir -p "$dir"
  kafka_write_config
  local cp; cp="$(kafka_home)/lib/*"
  if [ ! -f "$dir/data/meta.properties" ]; then
    # a URL-safe base64 UUID as Kafka makes them; one that starts with '-' (1 in 64) would be read as an option
    local cluster_id=-
    while [[ $cluster_id == -* ]]; do cluster_id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '='); done
    java -Xmx256m -Dlog4j2.configurationFile="$dir/log4j2-tools.properties" -cp "$cp" \
      @"$(kafka_format_args "$cluster_id")" >> "$(store_log kafka)" 2>&1 \
      || die "kafka storage format failed, see $(store_log kafka)"
    rm -f "$dir/format.args"
  fi
  # the broker's own metrics (`kafka_server_*`, `kafka_controller_*`, `kafka_log_*`) from the Prometheus JMX
  # exporter as a Java agent, on KAFKA_JMX_EXPORTER_PORT of STACK_HOST
  local pid
  pid=$(spawn kafka java -Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    "$(jmx_exporter_agent "$KAFKA_JMX_EXPORTER_PORT" kafka)" \
    -Dlog4j2.configurationFile="$dir/log4j2.properties" -Dkafka.logs.dir="$dir" \
    -cp "$cp" kafka.Kafka "$dir/server.properties")
  record_store_pid kafka "$pid"
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

# consumer-group lag as the broker sees it (services/kafka-lag-exporter, the chart's exporter, its one source file
# compiled against this Kafka's jars): `kafka_consumergroup_*` and `kafka_topic_partition_*` series with
# kafka_exporter's names, on KAFKA_EXPORTER_PORT; as the admin with NEWSFEED_STACK_AUTH (it reads every group's
# offsets)
KAFKA_LAG_EXPORTER_SRC=$REPO_ROOT/services/kafka-lag-exporter/src/main/java/newsfeed/kafkalag/KafkaLagExporter.java
kafka_exporter_start() {
  local dir=$STACK_DIR/kafka pid config='' classes
  ! stack_auth || config=$(kafka_admin_config)
  classes=$(compile_tool kafka "$KAFKA_LAG_EXPORTER_SRC")
  # started in the store's dir: ci/local/leftovers.sh finds this run's processes by it
  pid=$(cd "$dir" && KAFKA_CLIENT_CONFIG=$config KAFKA_BOOTSTRAP_SERVERS=$STACK_HOST:$KAFKA_PORT \
    HTTP_HOST=$STACK_HOST HTTP_PORT=$KAFKA_EXPORTER_PORT spawn kafka-exporter java "${SHORT_JVM_OPTS[@]}" \
    -Dlog4j2.configurationFile="$dir/log4j2-tools.properties" -cp "$classes:$(kafka_home)/lib/*" \
    newsfeed.kafkalag.KafkaLagExporter)
  record_store_pid kafka-exporter "$pid"
}
kafka_exporter_ready() {
  local metrics
  metrics=$(curl -fsS "http://$STACK_HOST:$KAFKA_EXPORTER_PORT/metrics") && grep -q '^kafka_brokers 1$' <<< "$metrics"
}
