#!/usr/bin/env bash
# Part "kafka" of the store-auth suite: the chart's Kafka schema-Job script (charts/newsfeed/files/init/kafka.sh)
# runs for real against the stack's SASL/SCRAM Kafka, as the Job runs it (its environment from
# templates/init/job-kafka.yaml, the admin's credentials, the services' users with passwords made here, the init
# image's /opt/kafka/bin scripts from ci/local/cluster/images/init-kafka.sh), twice; then real clients logged in as
# each service's user prove the ACL matrix of docs/kubernetes.md ("Store credentials"), and the Kafka lag exporter
# logged in as its own user (Describe only) serves the same consumer-group series as the stack's, the admin's.
# Needs: a stack up with NEWSFEED_STACK_AUTH=true (NEWSFEED_RUN, NEWSFEED_PORT_OFFSET, STACK_ENV exported).
# Prints one ok/FAIL line per property.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.." || exit 1
# shellcheck source=ci/local/stack/lib.sh
source ci/local/stack/lib.sh
# shellcheck source=ci/tests/store-auth/lib.sh
source ci/tests/store-auth/lib.sh
# shellcheck source=ci/local/stack/stores/kafka.sh
source ci/local/stack/stores/kafka.sh

BOOTSTRAP=$STACK_HOST:$KAFKA_PORT
INBOUND_GROUP=newsfeed-inbound
SEARCH_GROUP=newsfeed-search
INBOUND_DLT=$KAFKA_TOPIC.$INBOUND_GROUP.dead-letter
SEARCH_DLT=$KAFKA_TOPIC.$SEARCH_GROUP.dead-letter
SCRATCH=store-auth-scratch
WORK=$NEWSFEED_RUN/store-auth-kafka
rm -rf "$WORK"; mkdir -p "$WORK/tmp"; chmod 700 "$WORK" "$WORK/tmp"

# the init image's /opt/kafka made by its own recipe (ci/local/cluster/images/init-kafka.sh) under DIR, minus the
# rootfs parts (busybox, user, JRE: this machine's java serves); its launcher pointed at DIR; prints the bin dir
kafka_bin() {
  local d=$1
  IMAGES_SRC=$REPO_ROOT/ci/local/cluster/images
  IMAGES_CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/images
  # shellcheck source=ci/local/cluster/images/init-kafka.sh
  source "$IMAGES_SRC/init-kafka.sh"
  rootfs_init() { mkdir -p "$1"; }
  rootfs_busybox() { :; }
  rootfs_user() { :; }
  jre_rootfs() { :; }
  init_kafka_rootfs "$d" >&2 || return 1
  sed -i "s|/opt/kafka/|$d/opt/kafka/|g" "$d/opt/kafka/bin/kafka-run-class.sh"
  echo "$d/opt/kafka/bin"
}

# the services' users, as the chart's Secrets hold them; passwords only in files of mode 600
make_users() {
  local s
  (umask 077
    for s in outbound inbound search kafka-lag-exporter; do
      echo "newsfeed-$s" > "$WORK/$s.user"; new_password > "$WORK/$s.password"
    done
    stack_env KAFKA_SASL_PASSWORD > "$WORK/admin.password"
    new_password > "$WORK/wrong.password"
    cat "$WORK"/*.password > "$WORK/passwords")
}

# client_config NAME USER PASSWORD_FILE: the client settings of a user, as KafkaSecurity makes them
client_config() {
  (umask 077
    printf '%s\n' security.protocol=SASL_PLAINTEXT sasl.mechanism=SCRAM-SHA-512 \
      "sasl.jaas.config=$(kafka_jaas scram.ScramLoginModule "$2" "$(cat "$3")")" > "$WORK/$1.properties")
}

make_client_configs() {
  local s
  for s in outbound inbound search kafka-lag-exporter; do
    client_config "$s" "$(cat "$WORK/$s.user")" "$WORK/$s.password"
  done
  client_config admin "$(stack_env KAFKA_SASL_USERNAME)" "$WORK/admin.password"
  client_config wrong-password "$(cat "$WORK/outbound.user")" "$WORK/wrong.password"
  : > "$WORK/anonymous.properties"
}

# init_script ACTION: charts/newsfeed/files/init/kafka.sh with the Job's environment (job-kafka.yaml); output in
# $WORK/init-<n>.log
RUNS=0
init_script() {
  RUNS=$((RUNS + 1))
  (
    export KAFKA_BIN=$BIN TMPDIR=$WORK/tmp LOG_DIR=$WORK/tmp/logs KAFKA_HEAP_OPTS=-Xmx256m
    export KAFKA_BOOTSTRAP_SERVERS=$BOOTSTRAP KAFKA_TOPIC PARTITIONS=$KAFKA_PARTITIONS REPLICATION_FACTOR=1
    export RETENTION_MS=$KAFKA_RETENTION_MS DEAD_LETTER_TOPICS="$INBOUND_DLT $SEARCH_DLT"
    export DEAD_LETTER_RETENTION_MS=$KAFKA_DEAD_LETTER_RETENTION_MS
    KAFKA_SECURITY_PROTOCOL=$(stack_env KAFKA_SECURITY_PROTOCOL) KAFKA_SASL_MECHANISM=$(stack_env KAFKA_SASL_MECHANISM)
    KAFKA_SASL_USERNAME=$(stack_env KAFKA_SASL_USERNAME) KAFKA_SASL_PASSWORD=$(cat "$WORK/admin.password")
    export KAFKA_SECURITY_PROTOCOL KAFKA_SASL_MECHANISM KAFKA_SASL_USERNAME KAFKA_SASL_PASSWORD
    OUTBOUND_USERNAME=$(cat "$WORK/outbound.user") OUTBOUND_PASSWORD=$(cat "$WORK/outbound.password")
    INBOUND_USERNAME=$(cat "$WORK/inbound.user") INBOUND_PASSWORD=$(cat "$WORK/inbound.password")
    SEARCH_USERNAME=$(cat "$WORK/search.user") SEARCH_PASSWORD=$(cat "$WORK/search.password")
    export OUTBOUND_USERNAME OUTBOUND_PASSWORD INBOUND_USERNAME INBOUND_PASSWORD SEARCH_USERNAME SEARCH_PASSWORD
    KAFKA_LAG_EXPORTER_USERNAME=$(cat "$WORK/kafka-lag-exporter.user")
    KAFKA_LAG_EXPORTER_PASSWORD=$(cat "$WORK/kafka-lag-exporter.password")
    export KAFKA_LAG_EXPORTER_USERNAME KAFKA_LAG_EXPORTER_PASSWORD
    export INBOUND_GROUP SEARCH_GROUP INBOUND_DEAD_LETTER_TOPIC=$INBOUND_DLT SEARCH_DEAD_LETTER_TOPIC=$SEARCH_DLT
    sh charts/newsfeed/files/init/kafka.sh "$1"
  ) > "$WORK/init-$RUNS.log" 2>&1
}

# as NAME ARG...: KafkaTool as the client NAME ($WORK/NAME.properties); output in $WORK/client.log
as() {
  local name=$1; shift
  KAFKA_CLIENT_CONFIG=$WORK/$name.properties java "${SHORT_JVM_OPTS[@]}" \
    -Dlog4j2.configurationFile="$STACK_DIR/kafka/log4j2-tools.properties" \
    -cp "$(compile_tool kafka KafkaTool):$(kafka_home)/lib/*" KafkaTool "$@" 2>> "$WORK/client.log"
}

# expect allowed|denied NAME CLIENT ACTION ARG...: one ok/FAIL line; a refusal must come from the authorizer or
# the login (KafkaTool can: exit 3), not from a timeout
expect() {
  local want=$1 name=$2 client=$3 action=$4; shift 4
  local got; got=$(as "$client" can "$action" "$BOOTSTRAP" "$@" | tail -n 1)
  echo "$client can $action $*: $got" >> "$WORK/client.log"
  if [ "${got%% *}" = "$want" ]; then ok "$name ($got)"; else fail "$name (want $want, got ${got:-an error})"; fi
}

state() { as admin state "$BOOTSTRAP" > "$WORK/state-$1.txt"; }

# watch_cmdlines: until $WORK/watching goes, samples every process's command line for a password
watch_cmdlines() {
  touch "$WORK/watching"
  (
    while [ -f "$WORK/watching" ]; do
      grep -a -l -F -f "$WORK/passwords" /proc/[0-9]*/cmdline 2>/dev/null >> "$WORK/cmdline-hits" || true
      printf . >> "$WORK/samples"
      sleep 0.2
    done
  ) &
  WATCHER=$!
}
stop_watching() { rm -f "$WORK/watching"; wait "$WATCHER" 2>/dev/null || true; }

check_first_run() {
  if init_script apply; then ok "kafka.sh apply as the admin exits 0"
  else fail "kafka.sh apply as the admin exits 0 (see $WORK/init-$RUNS.log)"; fi
  if state 1 && grep -qx "scram-user newsfeed-outbound SCRAM_SHA_512 iterations=8192" "$WORK/state-1.txt" &&
    grep -qx "scram-user newsfeed-inbound SCRAM_SHA_512 iterations=8192" "$WORK/state-1.txt" &&
    grep -qx "scram-user newsfeed-search SCRAM_SHA_512 iterations=8192" "$WORK/state-1.txt" &&
    grep -qx "scram-user newsfeed-kafka-lag-exporter SCRAM_SHA_512 iterations=8192" "$WORK/state-1.txt"; then
    ok "kafka.sh made a SCRAM-SHA-512 credential for each service's user and the lag exporter's"
  else
    fail "kafka.sh made a SCRAM-SHA-512 credential for each service's user and the lag exporter's (see $WORK/state-1.txt)"
  fi
  if grep -q "^topic $KAFKA_TOPIC partitions=$KAFKA_PARTITIONS retention.ms=$KAFKA_RETENTION_MS$" "$WORK/state-1.txt"; then
    ok "the events topic has $KAFKA_PARTITIONS partitions and its own retention"
  else fail "the events topic has $KAFKA_PARTITIONS partitions and its own retention"; fi
  if init_script check; then ok "kafka.sh check as the admin exits 0"; else fail "kafka.sh check as the admin exits 0"; fi
}

check_second_run() {
  if init_script apply; then ok "kafka.sh apply a second time exits 0"
  else fail "kafka.sh apply a second time exits 0 (see $WORK/init-$RUNS.log)"; fi
  if state 2 && diff "$WORK/state-1.txt" "$WORK/state-2.txt" > "$WORK/state.diff"; then
    ok "kafka.sh apply a second time changes no topic, ACL or SCRAM user"
  else fail "kafka.sh apply a second time changes no topic, ACL or SCRAM user (see $WORK/state.diff)"; fi
  local s
  for s in outbound inbound search kafka-lag-exporter; do
    expect allowed "$s's password still logs in after the second run" "$s" connect
  done
}

check_outbound() {
  expect allowed "outbound may log in" outbound connect
  expect allowed "outbound may produce to the events topic" outbound produce "$KAFKA_TOPIC"
  expect denied "outbound may not read the events topic" outbound read "$KAFKA_TOPIC"
  expect denied "outbound may not consume the events topic in inbound's group" outbound consume "$KAFKA_TOPIC" \
    "$INBOUND_GROUP"
  expect denied "outbound may not produce to a dead-letter topic" outbound produce "$INBOUND_DLT"
  expect denied "outbound may not create a topic" outbound create-topic "$SCRATCH"
}

# check_consumer SERVICE GROUP DEAD_LETTER_TOPIC OTHER_GROUP OTHER_DEAD_LETTER_TOPIC
check_consumer() {
  local s=$1
  expect allowed "$s may consume the events topic in group $2 and commit" "$s" consume "$KAFKA_TOPIC" "$2"
  expect allowed "$s may produce to its dead-letter topic $3" "$s" produce "$3"
  expect denied "$s may not produce to the events topic" "$s" produce "$KAFKA_TOPIC"
  expect denied "$s may not consume in the other's group $4" "$s" consume "$KAFKA_TOPIC" "$4"
  expect denied "$s may not produce to the other's dead-letter topic $5" "$s" produce "$5"
  expect denied "$s may not create a topic" "$s" create-topic "$SCRATCH"
}

# the lag exporter's user describes, nothing more; the exporter logged in as it serves the same offsets and members of
# the services' groups as the stack's exporter (the admin) does
check_lag_exporter() {
  expect allowed "the lag exporter may log in" kafka-lag-exporter connect
  expect denied "the lag exporter may not read the events topic" kafka-lag-exporter read "$KAFKA_TOPIC"
  expect denied "the lag exporter may not consume in inbound's group" kafka-lag-exporter consume "$KAFKA_TOPIC" \
    "$INBOUND_GROUP"
  expect denied "the lag exporter may not produce to the events topic" kafka-lag-exporter produce "$KAFKA_TOPIC"
  expect denied "the lag exporter may not create a topic" kafka-lag-exporter create-topic "$SCRATCH"
  local port pid groups='^kafka_consumergroup_(current_offset|members)\{consumergroup="newsfeed-(inbound|search)"'
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  KAFKA_CLIENT_CONFIG=$WORK/kafka-lag-exporter.properties KAFKA_BOOTSTRAP_SERVERS=$BOOTSTRAP HTTP_HOST=$STACK_HOST \
    HTTP_PORT=$port java "${SHORT_JVM_OPTS[@]}" -Dlog4j2.configurationFile="$STACK_DIR/kafka/log4j2-tools.properties" \
    -cp "$(compile_tool kafka "$KAFKA_LAG_EXPORTER_SRC"):$(kafka_home)/lib/*" newsfeed.kafkalag.KafkaLagExporter \
    >> "$WORK/lag-exporter.log" 2>&1 &
  pid=$!
  local tries=0
  until curl -fsS "http://$STACK_HOST:$port/metrics" > "$WORK/lag-own.txt" 2>/dev/null || [ $tries -ge 60 ]; do
    tries=$((tries + 1)); sleep 0.5
  done
  curl -fsS "http://$STACK_HOST:$KAFKA_EXPORTER_PORT/metrics" > "$WORK/lag-admin.txt" || true
  kill "$pid"; wait "$pid" 2>/dev/null
  grep -E "$groups" "$WORK/lag-own.txt" > "$WORK/lag-own.groups" || true
  grep -E "$groups" "$WORK/lag-admin.txt" > "$WORK/lag-admin.groups" || true
  local name="the lag exporter as its own user: both groups' committed offsets and members, as the admin sees them"
  if grep -q '^kafka_consumergroup_members{consumergroup="newsfeed-inbound"}' "$WORK/lag-own.groups" &&
    grep -q '^kafka_consumergroup_current_offset{consumergroup="newsfeed-search",topic="'"$KAFKA_TOPIC"'"' \
      "$WORK/lag-own.groups" && diff "$WORK/lag-admin.groups" "$WORK/lag-own.groups" > "$WORK/lag.diff"; then
    ok "$name ($(wc -l < "$WORK/lag-own.groups") series)"
  else fail "$name (see $WORK/lag.diff, $WORK/lag-exporter.log)"; fi
}

check_logins() {
  expect denied "a wrong password is refused" wrong-password connect
  # a client without SASL gets no answer at all from a SASL listener: it times out rather than being refused
  if as anonymous can connect "$BOOTSTRAP" > /dev/null; then fail "a client without SASL is not served"
  else ok "a client without SASL is not served"; fi
}

check_deletes() {
  expect allowed "the admin may create a topic" admin create-topic "$SCRATCH"
  local s
  for s in outbound inbound search kafka-lag-exporter; do
    expect denied "$s may not delete a topic" "$s" delete-topic "$SCRATCH"
  done
  expect allowed "the admin may delete a topic" admin delete-topic "$SCRATCH"
}

# no password in what kafka.sh, the clients and the broker printed, nor on a command line while they ran
check_secrets() {
  if grep -a -q -F -f "$WORK/passwords" "$WORK"/init-*.log "$WORK/client.log" "$WORK"/state-*.txt \
    "$(store_log kafka)"; then
    fail "no password in the output of kafka.sh, the clients or the broker"
  else ok "no password in the output of kafka.sh, the clients or the broker"; fi
  if [ -s "$WORK/cmdline-hits" ]; then fail "no password on a command line while the tests ran"
  else ok "no password on a command line while the tests ran ($(wc -c < "$WORK/samples") samples of every process)"; fi
}

main() {
  BIN=$(kafka_bin "$WORK/image") || { fail "the init image's /opt/kafka/bin from init-kafka.sh"; exit 1; }
  ok "the init image's /opt/kafka/bin from init-kafka.sh ($(cd "$BIN" && echo *.sh))"
  make_users
  make_client_configs
  watch_cmdlines
  check_first_run
  check_outbound
  check_consumer inbound "$INBOUND_GROUP" "$INBOUND_DLT" "$SEARCH_GROUP" "$SEARCH_DLT"
  check_consumer search "$SEARCH_GROUP" "$SEARCH_DLT" "$INBOUND_GROUP" "$INBOUND_DLT"
  check_lag_exporter
  check_logins
  check_deletes
  check_second_run
  stop_watching
  check_secrets
  local s
  for s in outbound inbound search; do
    service_env "$s" "KAFKA_SASL_USERNAME=$(cat "$WORK/$s.user")" "KAFKA_SASL_PASSWORD=$(cat "$WORK/$s.password")"
  done
  [ "$failed" -eq 0 ]
}

main
