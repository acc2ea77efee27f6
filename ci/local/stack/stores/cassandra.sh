# Cassandra 5.0.9 as one node: CassandraDaemon on the jars of ~/.cache/newsfeed/stores/cassandra-<version>/lib
# with the Java 17 module options of its conf/jvm17-server.options, a 1 GiB heap, a cassandra.yaml generated here
# (ports from contracts.md + offset, every directory under the run dir) and the JMX exporter agent for its metrics.
# With NEWSFEED_STACK_AUTH: PasswordAuthenticator, CassandraAuthorizer and CassandraRoleManager, and the default
# superuser cassandra/cassandra replaced by CASSANDRA_ADMIN (password: stack_secret cassandra-admin).
# shellcheck shell=bash

CASSANDRA_ADMIN="admin"

cassandra_home() { echo "$STORES_CACHE/cassandra-$CASSANDRA_VERSION"; }

# CQL client: ci/local/stack/cql/Cql.java on the java-driver 4.x jars; in auth mode as the admin.
cql() {
  if stack_auth; then cql_as "$CASSANDRA_ADMIN" "$(stack_secret cassandra-admin)" "$@"; else cql_run "$@"; fi
}
# cql_as USER PASSWORD ARGS...: logs in as USER; the password reaches Cql.java by its environment, not its arguments
cql_as() {
  local user=$1 password=$2; shift 2
  CQL_USERNAME=$user CQL_PASSWORD=$password cql_run "$@"
}
cql_run() {
  java "${SHORT_JVM_OPTS[@]}" -cp "$(compile_tool cql Cql):$STORES_CACHE/cql-driver-$CQL_DRIVER_VERSION/lib/*" Cql \
    "$STACK_HOST:$CASSANDRA_PORT" datacenter1 "$@"
}

CASSANDRA_JVM17_OPTS=(
  -Djdk.attach.allowAttachSelf=true
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports java.base/jdk.internal.ref=ALL-UNNAMED
  --add-exports java.base/sun.nio.ch=ALL-UNNAMED
  --add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
  --add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
  --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
  --add-exports java.sql/java.sql=ALL-UNNAMED
  --add-exports java.base/java.lang.ref=ALL-UNNAMED
  --add-exports jdk.unsupported/sun.misc=ALL-UNNAMED
  --add-exports jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
  --add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED
  --add-opens java.base/java.lang.module=ALL-UNNAMED
  --add-opens java.base/jdk.internal.loader=ALL-UNNAMED
  --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
  --add-opens java.base/jdk.internal.math=ALL-UNNAMED
  --add-opens java.base/jdk.internal.module=ALL-UNNAMED
  --add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
  --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.base/java.io=ALL-UNNAMED
  --add-opens java.base/java.nio=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens jdk.compiler/com.sun.tools.javac=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED
  --add-opens java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens java.base/java.math=ALL-UNNAMED
  --add-opens java.base/java.net=ALL-UNNAMED
  -Dio.netty.tryReflectionSetAccessible=true
  -Dio.netty.allocator.useCacheForAllThreads=true
  -Dio.netty.allocator.maxOrder=11
)

cassandra_write_config() {
  local dir=$STACK_DIR/cassandra
  mkdir -p "$dir/conf" "$dir/data"
  cat > "$dir/conf/cassandra.yaml" <<CONF
cluster_name: newsfeed-local
num_tokens: 1
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
data_file_directories:
  - $dir/data/data
commitlog_directory: $dir/data/commitlog
saved_caches_directory: $dir/data/saved_caches
hints_directory: $dir/data/hints
cdc_raw_directory: $dir/data/cdc_raw
# Cassandra's default: acknowledged before the commit log is synced (every 10 s), so a kill -9 of this single
# replica loses the writes of up to the last 10 s; syncing first cost 10x the post latency (docs/reliability.md)
commitlog_sync: periodic
commitlog_sync_period: 10000ms
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "$STACK_HOST:$CASSANDRA_STORAGE_PORT"
listen_address: $STACK_HOST
rpc_address: $STACK_HOST
storage_port: $CASSANDRA_STORAGE_PORT
native_transport_port: $CASSANDRA_PORT
start_native_transport: true
endpoint_snitch: SimpleSnitch
dynamic_snitch: false
$(cassandra_auth_config)
auto_snapshot: false
snapshot_before_compaction: false
concurrent_reads: 8
concurrent_writes: 8
concurrent_counter_writes: 8
concurrent_compactors: 1
# compaction spread out instead of in bursts: at 64MiB/s (the default) each size-tiered compaction of the inbound
# table took a whole core for 3-8 s, and those seconds were the posts' latency spikes and k6's dropped iterations
# (2-minute runs at 1,000 posts/s: k6 p95 17-18 ms at 24MiB/s against 24-52 ms, docs/benchmarks/2026-11-23.md)
compaction_throughput: 24MiB/s
# memtable cells off the heap: under a sustained write load G1's concurrent marking of on-heap memtables took
# about a quarter of Cassandra's CPU (async-profiler, 1,000 posts/s); a larger heap also marks less often
memtable_allocation_type: offheap_objects
CONF
  cat > "$dir/conf/logback.xml" <<'CONF'
<configuration scan="false">
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="OUT"/></root>
</configuration>
CONF
}

# the authenticator, authorizer and role manager: everyone allowed, or (auth mode) roles with passwords and grants
cassandra_auth_config() {
  if ! stack_auth; then
    printf 'authenticator: AllowAllAuthenticator\nauthorizer: AllowAllAuthorizer\n'
    return
  fi
  printf 'authenticator: PasswordAuthenticator\nauthorizer: CassandraAuthorizer\nrole_manager: CassandraRoleManager\n'
  # roles and permissions cached for Cassandra's default 2 s (without a cache every request also reads system_auth,
  # which slowed the services under load); credentials not, so a new password applies to the next login at once
  printf 'roles_validity: 2000ms\npermissions_validity: 2000ms\ncredentials_validity: 0ms\n'
}

cassandra_start() {
  local dir=$STACK_DIR/cassandra
  cassandra_write_config
  local lib; lib=$(cassandra_home)/lib
  local agent=() jamm
  # jamm measures memtable sizes; without the agent Cassandra falls back to a slower strategy
  jamm=$(find "$lib" -name 'jamm-*.jar' | head -n1)
  [ -n "$jamm" ] && agent=(-javaagent:"$jamm")
  # Cassandra's own metrics (`org_apache_cassandra_metrics_*`, named as K8ssandra serves them) from the Prometheus
  # JMX exporter as a Java agent, on CASSANDRA_METRICS_PORT of STACK_HOST
  agent+=("$(jmx_exporter_agent "$CASSANDRA_METRICS_PORT" cassandra)")
  # the default superuser is made at once rather than 10 s after start: the admin is made from it (cassandra_ready)
  local auth=()
  stack_auth && auth=(-Dcassandra.superuser_setup_delay_ms=0)
  local pid
  pid=$(spawn cassandra java -Xms1g -Xmx1g -Xss256k -XX:+UseG1GC -XX:+ParallelRefProcEnabled \
    -XX:MaxDirectMemorySize=256m -XX:+ExitOnOutOfMemoryError -XX:+PerfDisableSharedMem -Djava.net.preferIPv4Stack=true \
    "${CASSANDRA_JVM17_OPTS[@]}" "${agent[@]}" "${auth[@]}" \
    -Dcassandra.config="file://$dir/conf/cassandra.yaml" -Dcassandra-foreground=yes \
    -Dcassandra.storagedir="$dir/data" -Dcassandra.logdir="$dir" \
    -Dlogback.configurationFile="$dir/conf/logback.xml" \
    -Dcassandra.jmx.local.port="$CASSANDRA_JMX_PORT" \
    -Dcassandra.skip_wait_for_gossip_to_settle=0 -Dcassandra.ring_delay_ms=1000 \
    -cp "$dir/conf:$lib/*" org.apache.cassandra.service.CassandraDaemon)
  record_store_pid cassandra "$pid"
}

# ready = a CQL query answers (in auth mode: as the admin, who is made from the default superuser on the first start)
cassandra_ready() {
  port_open "$CASSANDRA_PORT" || return 1
  cql -e 'SELECT release_version FROM system.local' || { stack_auth && cassandra_make_admin; }
}

# the admin, a superuser with its own password, made by the default superuser (cassandra/cassandra) while it exists
cassandra_make_admin() {
  local password; password=$(stack_secret cassandra-admin)
  cql_as cassandra cassandra -e "CREATE ROLE IF NOT EXISTS $CASSANDRA_ADMIN
    WITH PASSWORD = '$password' AND LOGIN = true AND SUPERUSER = true" || return 1
  cql -e 'SELECT release_version FROM system.local'
}

cassandra_schema() {
  # the well-known default superuser goes once the admin exists (Cassandra makes it again only when no role exists)
  if stack_auth; then cql -e 'DROP ROLE IF EXISTS cassandra' || return 1; fi
  cql -e "CREATE KEYSPACE IF NOT EXISTS $KEYSPACE
            WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; USE $KEYSPACE" \
      -f "$SCHEMA_DIR/cassandra.cql"
}

cassandra_stop_signal() { echo TERM; }

# auth mode: the admin's login for stack.env (clients of the stack and the chart's cassandra.sh read these names)
cassandra_admin_env() {
  echo "CASSANDRA_USERNAME=$CASSANDRA_ADMIN"
  echo "CASSANDRA_PASSWORD=$(stack_secret cassandra-admin)"
}
