#!/usr/bin/env bash
# Part "services" of the store-auth suite: the five services against the stack with authentication, each with only
# its own store users, the ones the chart's schema-Job scripts made in the kafka, cassandra and solr parts (they leave
# them in $NEWSFEED_RUN/service-env/<service>.env, as the chart's Secrets would hold them): the stack's environment
# goes to the services without any admin's credentials. Then the end-to-end suite (ci/tests/e2e.sh) runs through them:
# a post reaches every friend's inbound (inbound consumes as its user, writes as its Cassandra role) and search (its
# Kafka user, its Solr user). Last, no service process holds an admin's password in its environment.
# Needs: a stack up with NEWSFEED_STACK_AUTH=true and the other parts run (NEWSFEED_RUN, NEWSFEED_PORT_OFFSET, STACK_ENV).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.." || exit 1
# shellcheck source=ci/tests/store-auth/lib.sh
source ci/tests/store-auth/lib.sh

USERS=$NEWSFEED_RUN/service-env
WORK=$NEWSFEED_RUN/store-auth-services
mkdir -p "$WORK"; chmod 700 "$WORK"
# the admins' credentials in stack.env (<store>_admin_env of ci/local/stack/stores): never a service's
ADMIN_VARS='^(KAFKA_SASL_USERNAME|KAFKA_SASL_PASSWORD|CASSANDRA_USERNAME|CASSANDRA_PASSWORD|SOLR_ADMIN_USERNAME|SOLR_ADMIN_PASSWORD)='


# each of outbound, inbound and search has its users; the file names them and nothing of an admin's
users_ready() {
  local s missing=0
  for s in outbound inbound search; do
    [ -s "$USERS/$s.env" ] || { echo "no $USERS/$s.env" >&2; missing=1; }
  done
  grep -q '^KAFKA_SASL_USERNAME=' "$USERS/outbound.env" "$USERS/inbound.env" "$USERS/search.env" 2>/dev/null &&
    grep -q '^CASSANDRA_USERNAME=' "$USERS/outbound.env" "$USERS/inbound.env" 2>/dev/null &&
    grep -q '^SOLR_USERNAME=' "$USERS/search.env" 2>/dev/null && [ "$missing" -eq 0 ]
}

# the stack's environment minus every admin's credentials
(umask 077; grep -vE "$ADMIN_VARS" "$STACK_ENV" > "$WORK/stack.env")

# admin_passwords: the admins' passwords of stack.env, one a line
admin_passwords() { grep -E "$ADMIN_VARS" "$STACK_ENV" | grep '_PASSWORD=' | cut -d= -f2-; }

# the e2e suite through the services started with the users above; its own run dir, our port offset
e2e() {
  NEWSFEED_STACK_ENV=$WORK/stack.env SERVICE_ENV_DIR=$USERS bash ci/tests/e2e.sh > "$WORK/e2e.log" 2>&1
  local rc=$? line
  # colour codes a tool left at the start of the line must not hide the count (as in ci/tests/run.sh)
  line=$(sed 's/\x1b\[[0-9;]*m//g' "$WORK/e2e.log" | grep -E '^e2e: [0-9]+ passed, [0-9]+ failed' | tail -n 1)
  echo "$line"
  if [ "$rc" -ne 0 ] || ! [[ $line =~ ^e2e:\ [1-9][0-9]*\ passed,\ 0\ failed ]]; then tail -n 40 "$WORK/e2e.log"; return 1; fi
}

# no_admin_password_in_services: the environment of every running service instance (e2e.sh leaves none running,
# so start them again as e2e did) holds no admin's password
no_admin_password_in_services() {
  local pids p n=0
  NEWSFEED_STACK_ENV=$WORK/stack.env SERVICE_ENV_DIR=$USERS NEWSFEED_RUN=$WORK/run \
    bash ci/local/services.sh start > "$WORK/start.log" 2>&1 || { tail -n 20 "$WORK/start.log"; return 1; }
  pids=$(cat "$WORK"/run/services/pids/*.pid 2>/dev/null | cut -d' ' -f1)
  admin_passwords > "$WORK/admin-passwords"
  [ "$(grep -c . "$WORK/admin-passwords")" -eq 3 ] || { echo "not the 3 admins' passwords in stack.env"; stop_services; return 1; }
  for p in $pids; do
    n=$((n + 1))
    if tr '\0' '\n' < "/proc/$p/environ" | cut -d= -f2- | grep -xFf "$WORK/admin-passwords" > /dev/null; then
      echo "process $p holds an admin's password"; stop_services; return 1
    fi
  done
  stop_services
  echo "$n service processes checked"
  [ "$n" -eq 5 ]
}
stop_services() { NEWSFEED_RUN=$WORK/run bash ci/local/services.sh stop > /dev/null 2>&1; }

if users_ready; then
  ok "the services' own users (Kafka SCRAM, Cassandra roles, Solr) from the chart's schema-Job scripts"
  if out=$(e2e); then ok "end-to-end through the services with their own users, no admin's: $out"
  else echo "$out"; fail "end-to-end through the services with their own users, no admin's"; fi
  if out=$(no_admin_password_in_services); then ok "no service process holds an admin's password ($out)"
  else echo "$out"; fail "no service process holds an admin's password"; fi
else
  fail "the services' own users (Kafka SCRAM, Cassandra roles, Solr) from the chart's schema-Job scripts"
fi
