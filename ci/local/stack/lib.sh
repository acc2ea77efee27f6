# Shared settings and helpers of the local store stack (sourced by ci/local/stack.sh and ci/local/stack/*.sh).
# Paths, pinned versions and ports live here so every store script agrees on them.
# shellcheck shell=bash disable=SC2034   # the settings below are read by the scripts that source this

STACK_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$STACK_SRC/../../.." && pwd)
SCHEMA_DIR=$REPO_ROOT/charts/newsfeed/files/schema

KAFKA_VERSION=4.4.0
CASSANDRA_VERSION=5.0.9
SOLR_VERSION=9.10.1
CQL_DRIVER_VERSION=4.19.3
JMX_EXPORTER_VERSION=1.0.1   # ci/local/stack/jmx-exporter/pom.xml
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

NEWSFEED_RUN=${NEWSFEED_RUN:-$REPO_ROOT/.run}
STACK_DIR=$NEWSFEED_RUN/stack
STACK_ENV=$NEWSFEED_RUN/stack.env
STORES_CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/stores
OFFSET=${NEWSFEED_PORT_OFFSET:-0}
# The one address every store listens on and the clients use: loopback by default; the local Kubernetes node's
# address (ci/local/cluster.sh env: NODE_IP) makes the stores reachable from its pods. Never 0.0.0.0. A run dir keeps
# the host it was set up with (ci/local/stack.sh check_host), so later commands on it need not repeat it.
STACK_HOST=${NEWSFEED_STACK_HOST:-$(cat "$STACK_DIR/host" 2>/dev/null || echo 127.0.0.1)}
# Networks allowed to log in to PostgreSQL besides STACK_HOST itself, e.g. the pods' CIDR (space-separated); kept
# by the run dir like the host
STACK_CLIENTS=${NEWSFEED_STACK_CLIENTS-$(cat "$STACK_DIR/clients" 2>/dev/null || true)}
# true: Kafka, Cassandra and Solr ask for credentials, as the chart's stores do with storeAuth (Kafka SASL/SCRAM with
# ACLs, Cassandra's PasswordAuthenticator and CassandraAuthorizer, Solr's basic auth): each store's admin user gets a
# password generated into the run dir (stack_secret), stack.env names the admins. Kept by the run dir like the host.
STACK_AUTH=${NEWSFEED_STACK_AUTH:-$(cat "$STACK_DIR/auth" 2>/dev/null || echo false)}

PG_PORT=$((15432 + OFFSET))
REDIS_PORT=$((16379 + OFFSET))
KAFKA_PORT=$((19092 + OFFSET))
KAFKA_CONTROLLER_PORT=$((19093 + OFFSET))
CASSANDRA_PORT=$((19042 + OFFSET))
CASSANDRA_STORAGE_PORT=$((17000 + OFFSET))
CASSANDRA_JMX_PORT=$((17199 + OFFSET))
SOLR_PORT=$((18983 + OFFSET))
# the stores' own metrics where the store does not serve them itself: as the chart's exporters do in a cluster
REDIS_EXPORTER_PORT=$((19121 + OFFSET))
KAFKA_JMX_EXPORTER_PORT=$((15556 + OFFSET))
KAFKA_EXPORTER_PORT=$((19308 + OFFSET))   # consumer-group lag (services/kafka-lag-exporter)
POSTGRESQL_EXPORTER_PORT=$((19187 + OFFSET))
CASSANDRA_METRICS_PORT=$((19103 + OFFSET))

STORES=(postgresql redis kafka cassandra solr)
KAFKA_TOPIC=outbound-posted
KAFKA_PARTITIONS=6
# the consumer groups of inbound and search (the services' defaults), each with its own dead-letter topic
KAFKA_GROUPS="newsfeed-inbound newsfeed-search"
KAFKA_RETENTION_MS=$((7 * 24 * 3600 * 1000))
KAFKA_DEAD_LETTER_RETENTION_MS=$((14 * 24 * 3600 * 1000))
SOLR_CORE=outbound
KEYSPACE=newsfeed
READY_TIMEOUT=${NEWSFEED_STACK_TIMEOUT:-150}   # seconds per store; a cold 2-core box under load is slow

# short-lived helper JVMs (CQL, Kafka admin): start fast, stay small
SHORT_JVM_OPTS=(-Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto)

log() { echo "[stack $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

store_port() {
  case $1 in
    postgresql) echo "$PG_PORT" ;; redis) echo "$REDIS_PORT" ;; kafka) echo "$KAFKA_PORT" ;;
    cassandra) echo "$CASSANDRA_PORT" ;; solr) echo "$SOLR_PORT" ;; *) die "unknown store $1" ;;
  esac
}
store_dir() { echo "$STACK_DIR/$1"; }
store_log() { echo "$STACK_DIR/logs/$1.log"; }
pid_file() { echo "$STACK_DIR/pids/$1.pid"; }

# shellcheck source=ci/local/process.sh
source "$REPO_ROOT/ci/local/process.sh"   # pid files that survive recycled PIDs
record_store_pid() { record_pid "$(pid_file "$1")" "$2"; }
# Prints the PID of the store if the process we recorded is still the one alive.
store_pid() { recorded_pid "$(pid_file "$1")"; }
store_running() { store_pid "$1" >/dev/null; }

# Starts a command detached from our session (so Ctrl-C or a finished caller does not take the store
# down), stdout+stderr into the store's log; prints its PID.
spawn() {
  local name=$1; shift
  # 9>&-: the store must not inherit the lock fd of ci/local/stack.sh (it would hold the lock forever)
  setsid "$@" >> "$(store_log "$name")" 2>&1 < /dev/null 9>&- &
  echo $!
}

# Runs a command as the postgres OS user when we are root (PostgreSQL refuses to run as root).
as_pg_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# wait_until SECONDS STORE CMD...: polls CMD until it succeeds; fails early if the store died.
wait_until() {
  local timeout=$1 name=$2; shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ! store_running "$name"; then
      log "$name exited during start; last log lines:"; tail -n 30 "$(store_log "$name")" >&2 || true
      return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      log "$name not ready after ${timeout}s; last log lines:"; tail -n 30 "$(store_log "$name")" >&2 || true
      return 1
    fi
    sleep 0.5
  done
}

# stack_secret NAME: a password generated once per run dir (readable by its owner only), printed
stack_secret() {
  local f=$STACK_DIR/secrets/$1
  if [ ! -s "$f" ]; then
    mkdir -p "$STACK_DIR/secrets"; chmod 700 "$STACK_DIR/secrets"
    (umask 077; head -c 18 /dev/urandom | base64 | tr '+/' '-_' > "$f.tmp") && mv "$f.tmp" "$f"
  fi
  cat "$f"
}
stack_auth() { [ "$STACK_AUTH" = true ]; }

# on the stack's address (process.sh's own asks loopback)
port_open() { (exec 3<>"/dev/tcp/$STACK_HOST/$1") 2>/dev/null; }

# cache dir name of each pom under ci/local/stack/<pom>/pom.xml
cache_name() {
  case $1 in
    kafka) echo "kafka-$KAFKA_VERSION" ;; cassandra) echo "cassandra-$CASSANDRA_VERSION" ;;
    solr) echo "solr-$SOLR_VERSION" ;; cql) echo "cql-driver-$CQL_DRIVER_VERSION" ;;
    jmx-exporter) echo "jmx-exporter-$JMX_EXPORTER_VERSION" ;; *) die "unknown pom $1" ;;
  esac
}

# jmx_exporter_agent PORT STORE: the JVM option that runs the Prometheus JMX exporter as a Java agent in a store's JVM,
# serving on PORT of STACK_HOST with the rules of ci/local/stack/<STORE>/jmx-exporter.yaml
jmx_exporter_agent() {
  local jar
  jar="$STORES_CACHE/$(cache_name jmx-exporter)/lib/jmx_prometheus_javaagent-$JMX_EXPORTER_VERSION.jar"
  echo "-javaagent:$jar=$STACK_HOST:$1:$STACK_SRC/$2/jmx-exporter.yaml"
}

# compile_tool POM SOURCE: compiles ci/local/stack/<pom>/<SOURCE>.java (or SOURCE itself when it is a path to a
# .java file) against that pom's jars once per source version; prints the classes dir.
compile_tool() {
  local src=$STACK_SRC/$1/$2.java dir; dir=$STORES_CACHE/$(cache_name "$1")
  [[ $2 != */*.java ]] || src=$2
  local out; out=$dir/tools/$(basename "$src" .java)-$(sha256sum "$src" | cut -c1-16)
  if [ ! -f "$out/.done" ]; then
    rm -rf "$out"; mkdir -p "$out"
    javac -nowarn -proc:none -cp "$dir/lib/*" -d "$out" "$src" >&2
    touch "$out/.done"
  fi
  echo "$out"
}
