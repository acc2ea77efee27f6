#!/usr/bin/env bash
# Suite "stack": brings up the real local stores in a fresh run dir (ci/local/stack.sh up), talks to each with a
# real client (psql, redis-cli, Kafka producer/consumer, CQL driver, Solr HTTP API), reads the exporters of
# PostgreSQL, Redis and Kafka, exercises the single-store stop/start used by fault tests and a back-to-back restart,
# then `down` and checks that every process is gone.
# Usage: ci/tests/stack.sh   (NEWSFEED_PORT_OFFSET defaults to 500 so it never meets a dev stack)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

export NEWSFEED_PORT_OFFSET=${NEWSFEED_PORT_OFFSET:-500}
# shellcheck source=ci/tests/lib/run_dir.sh
source ci/tests/lib/run_dir.sh
suite_run_dir stack-test
# shellcheck source=ci/local/stack/lib.sh
source ci/local/stack/lib.sh
for store in "${STORES[@]}"; do
  # shellcheck source=/dev/null
  source "ci/local/stack/stores/$store.sh"
done

passed=0 failed=0
cleanup() {
  local rc=$?
  ci/local/stack.sh down >/dev/null 2>&1 || true
  if [ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]; then rm -rf "$NEWSFEED_RUN"; else echo "kept run dir $NEWSFEED_RUN" >&2; fi
}
trap cleanup EXIT

check() {
  local name=$1; shift
  if "$@"; then
    passed=$((passed + 1)); echo "ok - $name"
  else
    failed=$((failed + 1)); echo "FAIL - $name"
  fi
}

up() { ci/local/stack.sh up; }

env_complete() {
  local key
  for key in PG_HOST PG_PORT PG_DATABASE PG_USER PG_PASSWORD REDIS_URL CASSANDRA_CONTACT_POINTS \
    CASSANDRA_LOCAL_DC CASSANDRA_KEYSPACE KAFKA_BOOTSTRAP_SERVERS KAFKA_TOPIC SOLR_URL SOLR_COLLECTION \
    REDIS_METRICS_ADDRESS KAFKA_METRICS_ADDRESS KAFKA_LAG_METRICS_ADDRESS POSTGRESQL_METRICS_ADDRESS \
    CASSANDRA_METRICS_ADDRESS; do
    grep -q "^$key=." "$STACK_ENV" || { echo "stack.env lacks $key" >&2; return 1; }
  done
  [ "$(grep -c . <(ci/local/stack.sh env))" -eq 18 ]
}

psql_app() {
  # shellcheck source=/dev/null
  (set -a; source "$STACK_ENV"; PGPASSWORD=$PG_PASSWORD "$PG_BIN/psql" -X -q -tA -v ON_ERROR_STOP=1 \
    -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$PG_DATABASE" "$@")
}

postgresql_tables() {
  local got
  got=$(psql_app -c "
    WITH a AS (INSERT INTO participant (name) VALUES ('ada') RETURNING id),
         b AS (INSERT INTO participant (name) VALUES ('bob') RETURNING id)
    INSERT INTO friendship (from_id, to_id) SELECT a.id, b.id FROM a, b UNION ALL SELECT b.id, a.id FROM a, b;
    SELECT p.name FROM friendship f JOIN participant p ON p.id = f.to_id
     WHERE f.from_id = (SELECT id FROM participant WHERE name = 'ada' ORDER BY id DESC LIMIT 1);")
  [ "$got" = bob ] || { echo "friends of ada: '$got'" >&2; return 1; }
}

postgresql_rejects_self_friendship() {
  ! psql_app -c "INSERT INTO friendship (from_id, to_id) SELECT id, id FROM participant LIMIT 1" 2>/dev/null
}

postgresql_rejects_wrong_password() {
  ! PGPASSWORD=wrong "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U newsfeed -d newsfeed -c 'SELECT 1' 2>/dev/null
}

redis_set_get() {
  local value; value="v-$RANDOM-$$"
  [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" SET stack-test "$value")" = OK ] &&
    [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" GET stack-test)" = "$value" ]
}

# the commands the chart's Redis disables are unknown to the stack's Redis too (Lua first: CVE-2025-49844)
redis_refuses_disabled_commands() {
  local c out rc=0
  for c in "${REDIS_DISABLED_COMMANDS[@]}"; do
    out=$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" "$c" 2>&1 || true)
    case $out in *"unknown command"*) ;; *) echo "$c answered: $out" >&2; rc=1 ;; esac
  done
  [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" MGET stack-test-none-1 stack-test-none-2 | wc -l)" -eq 2 ] || rc=1
  return $rc
}

kafka_topic_has_partitions() {
  kafka_tool create-topic "127.0.0.1:$KAFKA_PORT" "$KAFKA_TOPIC" "$KAFKA_PARTITIONS" | grep -x "$KAFKA_TOPIC partitions=6" > /dev/null
}

# the schema step set retention on the events topic and created each group's dead-letter topic with its own
kafka_topics_have_retention() {
  local group
  kafka_tool describe-topic "127.0.0.1:$KAFKA_PORT" "$KAFKA_TOPIC" |
    grep -x "$KAFKA_TOPIC partitions=6 retention.ms=$KAFKA_RETENTION_MS" > /dev/null || return 1
  for group in $KAFKA_GROUPS; do
    kafka_tool describe-topic "127.0.0.1:$KAFKA_PORT" "$KAFKA_TOPIC.$group.dead-letter" |
      grep -x "$KAFKA_TOPIC.$group.dead-letter partitions=1 retention.ms=$KAFKA_DEAD_LETTER_RETENTION_MS" > /dev/null || return 1
  done
}

kafka_produce_consume() {
  local key value got; key="probe-$RANDOM$$"; value="{\"probe\":\"$key\"}"
  kafka_tool produce "127.0.0.1:$KAFKA_PORT" "$KAFKA_TOPIC" "$key" "$value" >/dev/null &&
    got=$(kafka_tool consume "127.0.0.1:$KAFKA_PORT" "$KAFKA_TOPIC" "$key" 60) &&
    [ "$got" = "$value" ]
}

cassandra_insert_select() {
  local story; story="story-$RANDOM$$"
  local got
  got=$(cql -k "$KEYSPACE" -e "INSERT INTO outbound (participant_id, occurred, subject, story) VALUES (42, now(), 'hi', '$story');
    INSERT INTO inbound (participant_id, occurred, from_participant_id, subject, story) VALUES (7, now(), 42, 'hi', '$story');
    SELECT story FROM outbound WHERE participant_id = 42 LIMIT 1;
    SELECT from_participant_id FROM inbound WHERE participant_id = 7 LIMIT 1")
  [ "$got" = "$story"$'\n'42 ] || { echo "cql returned '$got'" >&2; return 1; }
}

# no explicit commit: the configset's 1 s soft commit must make the document searchable within seconds
solr_add_query() {
  local id; id="$(cat /proc/sys/kernel/random/uuid)"
  curl -fsS -m 10 -H 'Content-Type: application/json' "$(solr_url)/$SOLR_CORE/update" \
    -d "[{\"id\":\"$id\",\"participant_id\":42,\"from\":\"/participant/42\",\"occurred\":\"2026-11-22T15:30:00Z\",\"subject\":\"Running shoes\",\"story\":\"I went running today\"}]" >/dev/null || return 1
  local i
  for i in $(seq 1 20); do
    if curl -fsS -m 5 "$(solr_url)/$SOLR_CORE/select?q=run&fq=participant_id:42&fl=id&wt=json" | grep "\"$id\"" > /dev/null; then
      return 0
    fi
    sleep 0.5
  done
  echo "document $id not found by a stemmed query (i=$i)" >&2; return 1
}

metric_value() {  # metric_value ADDRESS SERIES: the sample of that exact series (name and labels) on /metrics
  curl -sf "http://$1/metrics" | awk -v s="$2" '$1 == s {print $2; found=1} END {exit !found}'
}

# the exporter beside Redis reaches it (CONFIG is renamed away: nothing asks for it) and counts its commands
redis_exporter_serves() {
  metric_value "127.0.0.1:$REDIS_EXPORTER_PORT" redis_up | grep -x 1 > /dev/null &&
    [ "$(metric_value "127.0.0.1:$REDIS_EXPORTER_PORT" 'redis_commands_total{cmd="set"}')" -ge 1 ] &&
    ! grep -qi "error" "$(store_log redis-exporter)"
}

# the JMX agent in Kafka's JVM serves the broker's MBeans under the Kafka chart's names: the probe record is counted
kafka_exporter_serves() {
  local n
  n=$(metric_value "127.0.0.1:$KAFKA_JMX_EXPORTER_PORT" \
    "kafka_server_brokertopicmetrics_messagesinpersec_count{topic=\"$KAFKA_TOPIC\"}") &&
    awk -v n="$n" 'BEGIN {exit !(n >= 1)}' &&
    metric_value "127.0.0.1:$KAFKA_JMX_EXPORTER_PORT" kafka_controller_kafkacontroller_activecontrollercount_value |
    grep -x 1.0 > /dev/null
}

# the lag exporter beside Kafka sees a group from the broker's side, with nobody consuming: after a member of a new
# group committed and left (0 members), each record produced after it is one more record of lag on the topic, and
# each partition's committed offset plus its lag is the partition's end offset
kafka_lag_exporter_serves() {
  local group=stack-lag-$RANDOM$$ address="127.0.0.1:$KAFKA_EXPORTER_PORT" before after metrics
  kafka_tool can consume "127.0.0.1:$KAFKA_PORT" "$KAFKA_TOPIC" "$group" >/dev/null &&
    before=$(metric_value "$address" "kafka_consumergroup_lag_sum{consumergroup=\"$group\",topic=\"$KAFKA_TOPIC\"}") &&
    kafka_tool produce "127.0.0.1:$KAFKA_PORT" "$KAFKA_TOPIC" lag-a a >/dev/null &&
    kafka_tool produce "127.0.0.1:$KAFKA_PORT" "$KAFKA_TOPIC" lag-b b >/dev/null &&
    after=$(metric_value "$address" "kafka_consumergroup_lag_sum{consumergroup=\"$group\",topic=\"$KAFKA_TOPIC\"}") &&
    [ "$((after - before))" -eq 2 ] || { echo "lag of $group: $before, then $after after 2 records" >&2; return 1; }
  metric_value "$address" "kafka_consumergroup_members{consumergroup=\"$group\"}" | grep -x 0 > /dev/null &&
    metrics=$(curl -fsS "http://$address/metrics") &&
    python3 - "$group" "$KAFKA_TOPIC" "$metrics" <<'PY'
import re, sys
group, topic, metrics = sys.argv[1:]
samples = {}
for line in metrics.splitlines():
    m = re.match(r'(\w+)\{(.*)\} (\d+)$', line.strip())
    if m:
        samples[(m[1], tuple(sorted(re.findall(r'(\w+)="([^"]*)"', m[2]))))] = int(m[3])
def value(name, **labels):
    return samples[(name, tuple(sorted(labels.items())))]
parts = value("kafka_topic_partitions", topic=topic)
for p in map(str, range(parts)):
    end = value("kafka_topic_partition_current_offset", topic=topic, partition=p)
    done = value("kafka_consumergroup_current_offset", consumergroup=group, topic=topic, partition=p)
    lag = value("kafka_consumergroup_lag", consumergroup=group, topic=topic, partition=p)
    assert done + lag == end, (p, done, lag, end)
PY
}

# the JMX agent in Cassandra's JVM serves Cassandra's metrics under K8ssandra's names: the coordinator's writes and
# reads counted by type, and each table's own, after cassandra_insert_select wrote one row to outbound and one to
# inbound and read each back; nothing else writes to them
cassandra_exporter_serves() {
  local address=127.0.0.1:$CASSANDRA_METRICS_PORT prefix=org_apache_cassandra_metrics table writes
  writes=$(metric_value "$address" "${prefix}_client_request_latency_count{request_type=\"Write\"}") &&
    awk -v n="$writes" 'BEGIN {exit !(n >= 2)}' || { echo "coordinated writes: '$writes'" >&2; return 1; }
  for table in outbound inbound; do
    metric_value "$address" "${prefix}_table_write_latency_count{keyspace=\"newsfeed\",table=\"$table\"}" |
      grep -x 1.0 > /dev/null || { echo "writes to $table: not 1" >&2; return 1; }
    metric_value "$address" "${prefix}_table_read_latency_count{keyspace=\"newsfeed\",table=\"$table\"}" |
      grep -x 1.0 > /dev/null || { echo "reads of $table: not 1" >&2; return 1; }
  done
  # the meters of a request type as counters (_total), the node's load in bytes, a thread pool's queue
  metric_value "$address" "${prefix}_client_request_timeouts_total{request_type=\"Write\"}" | grep -x 0.0 > /dev/null &&
    awk -v n="$(metric_value "$address" "${prefix}_storage_load")" 'BEGIN {exit !(n > 0)}' &&
    metric_value "$address" \
      "${prefix}_thread_pools_pending_tasks{pool_name=\"MutationStage\",pool_type=\"request\"}" >/dev/null
}

# pg_sample SERIES BEFORE [AFTER]: the sample of a series of the exporter beside PostgreSQL, its labels in the
# exporter's (alphabetical) order: BEFORE and AFTER the exporter's own label `server`
pg_sample() {
  metric_value "127.0.0.1:$POSTGRESQL_EXPORTER_PORT" "$1{${2:+$2,}server=\"127.0.0.1:$PG_PORT\"${3:+,$3}}"
}

# the exporter beside PostgreSQL answers with CloudNativePG's names only (none of its own collectors' pg_* series),
# on 127.0.0.1 only, and counts what a client of the newsfeed database did: 200 transactions committed one by one
# (more than its own queries commit meanwhile) and one rolled back (it rolls none back itself)
postgresql_exporter_serves() {
  local commits rollbacks i active
  pg_sample cnpg_collector_up 'cluster="postgresql-local"' | grep -x 1 > /dev/null || { echo "cnpg_collector_up not 1" >&2; return 1; }
  # the exporter's own query is the one active backend of user newsfeed; in about 1 scrape of 75 another of its
  # connections is still active too and it reads 2, so up to 10 scrapes, one of which must read exactly 1
  for i in $(seq 1 10); do
    active=$(pg_sample cnpg_backends_total 'application_name="",datname="newsfeed"' 'state="active",usename="newsfeed"')
    [ "$active" = 1 ] && break
  done
  [ "$active" = 1 ] || { echo "active backends of newsfeed in 10 scrapes: last '$active'" >&2; return 1; }
  ! curl -sf "http://127.0.0.1:$POSTGRESQL_EXPORTER_PORT/metrics" |
    grep -E '^pg_(stat|settings|database|locks|roles|wal|replication)' || return 1
  [ "$(ss -Hltn "sport = :$POSTGRESQL_EXPORTER_PORT" | awk '{print $4}')" = "127.0.0.1:$POSTGRESQL_EXPORTER_PORT" ] ||
    { echo "the exporter listens elsewhere than 127.0.0.1:$POSTGRESQL_EXPORTER_PORT" >&2; return 1; }
  commits=$(pg_sample cnpg_pg_stat_database_xact_commit 'datname="newsfeed"') &&
    rollbacks=$(pg_sample cnpg_pg_stat_database_xact_rollback 'datname="newsfeed"') || return 1
  for i in $(seq 1 200); do echo "INSERT INTO participant (name) VALUES ('exporter-$i');"; done | psql_app || return 1
  psql_app -c "BEGIN" -c "INSERT INTO participant (name) VALUES ('rolled back')" -c "ROLLBACK" || return 1
  for _ in $(seq 1 20); do
    awk -v a="$(pg_sample cnpg_pg_stat_database_xact_commit 'datname="newsfeed"')" -v b="$commits" \
      -v c="$(pg_sample cnpg_pg_stat_database_xact_rollback 'datname="newsfeed"')" -v d="$rollbacks" \
      'BEGIN {exit !(a - b >= 200 && c - d >= 1)}' && ! grep -q 'level=ERROR' "$(store_log postgresql-exporter)" &&
      return 0
    sleep 0.5
  done
  echo "commits from $commits to $(pg_sample cnpg_pg_stat_database_xact_commit 'datname="newsfeed"')," \
    "rollbacks from $rollbacks to $(pg_sample cnpg_pg_stat_database_xact_rollback 'datname="newsfeed"')" >&2
  return 1
}

up_again_is_noop() {
  local before after
  before=$(cat "$STACK_DIR"/pids/*.pid)
  ci/local/stack.sh up >/dev/null 2>&1
  after=$(cat "$STACK_DIR"/pids/*.pid)
  [ "$before" = "$after" ]
}

stop_start_single_store() {
  local old exporter; old=$(store_pid redis); exporter=$(store_pid redis-exporter)
  ci/local/stack.sh stop-store redis 2>/dev/null && ! alive "$old" && ! alive "$exporter" && ! redis_ready 2>/dev/null &&
    ! ci/local/stack.sh status >/dev/null && ci/local/stack.sh start-store redis 2>/dev/null && redis_ready &&
    redis_exporter_ready && ci/local/stack.sh status >/dev/null
}

# the exporter beside PostgreSQL stops before it and starts again after it: a new process that reaches the new server
stop_start_postgresql() {
  local old exporter; old=$(store_pid postgresql); exporter=$(store_pid postgresql-exporter)
  ci/local/stack.sh stop-store postgresql 2>/dev/null && ! alive "$old" && ! alive "$exporter" &&
    ! postgresql_ready 2>/dev/null && ! port_open "$POSTGRESQL_EXPORTER_PORT" &&
    ! ci/local/stack.sh status >/dev/null &&
    ci/local/stack.sh start-store postgresql 2>/dev/null && postgresql_ready >/dev/null &&
    [ "$(store_pid postgresql-exporter)" != "$exporter" ] && postgresql_exporter_ready &&
    ci/local/stack.sh status >/dev/null && postgresql_tables
}

# stop and start back to back: the new JVM must not find the old one's ports still held by its exiting threads
restart_store_right_away() {
  local old; old=$(store_pid cassandra)
  ci/local/stack.sh restart-store cassandra 2>/dev/null && ! alive "$old" && cassandra_insert_select
}

down_stops_everything() {
  local pids pid
  pids=$(cut -d' ' -f1 "$STACK_DIR"/pids/*.pid)
  ci/local/stack.sh down 2>/dev/null || return 1
  for pid in $pids; do
    if alive "$pid"; then echo "pid $pid still alive" >&2; return 1; fi
  done
  # nothing else that lives in this run dir either (e.g. PostgreSQL's worker processes)
  if pgrep -f "$NEWSFEED_RUN" >/dev/null; then pgrep -af "$NEWSFEED_RUN" >&2; return 1; fi
}

check "up starts all stores and creates schemas" up
if [ "$failed" -eq 0 ]; then
  check "stack.env has every service variable" env_complete
  check "postgresql: tables from postgresql.sql answer as user newsfeed" postgresql_tables
  check "postgresql: friendship rejects a self-friendship" postgresql_rejects_self_friendship
  check "postgresql: a wrong password is refused" postgresql_rejects_wrong_password
  check "redis: SET then GET" redis_set_get
  check "redis: ${REDIS_DISABLED_COMMANDS[*]} are disabled, MGET still answers" redis_refuses_disabled_commands
  check "kafka: topic $KAFKA_TOPIC has 6 partitions" kafka_topic_has_partitions
  check "kafka: retention set on the topic, a dead-letter topic per group" kafka_topics_have_retention
  check "kafka: produce then consume one record" kafka_produce_consume
  check "redis: its exporter serves redis_up 1 and counts the SET" redis_exporter_serves
  check "postgresql: its exporter serves cnpg_collector_up 1 and counts 200 commits and a rollback" \
    postgresql_exporter_serves
  check "kafka: its JMX exporter counts the record on $KAFKA_TOPIC and one active controller" kafka_exporter_serves
  check "kafka: its lag exporter counts the records produced after a group's commit as its lag, with 0 members" \
    kafka_lag_exporter_serves
  check "cassandra: insert+select on newsfeed.outbound and inbound" cassandra_insert_select
  check "cassandra: its JMX exporter counts the row written to and read from each table, under K8ssandra's names" \
    cassandra_exporter_serves
  check "solr: add a document, find it by a stemmed query" solr_add_query
  check "up again is a no-op" up_again_is_noop
  check "stop-store/start-store redis (and its exporter)" stop_start_single_store
  check "stop-store/start-store postgresql (and its exporter)" stop_start_postgresql
  check "restart-store cassandra" restart_store_right_away
fi
check "down stops every process" down_stops_everything
echo "stack: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
