#!/usr/bin/env bash
# Part "cassandra" of ci/tests/store-auth.sh: the chart's schema-Job script (charts/newsfeed/files/init/cassandra.sh)
# runs `apply` for real, with the pinned cqlsh of the init image and the environment job-cassandra.yaml gives it (the
# admin, the keyspace, outbound's and inbound's role and password), against the stack's Cassandra with
# PasswordAuthenticator and CassandraAuthorizer. Then real logins of each role (java-driver, Cql.java) prove what it
# may and may not do. Prints `ok - `/`FAIL - ` lines; no password is printed or put on a command line.
# Needs: a stack up with NEWSFEED_STACK_AUTH=true (NEWSFEED_RUN, NEWSFEED_PORT_OFFSET, STACK_ENV exported).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
# shellcheck source=ci/local/stack/lib.sh
source ci/local/stack/lib.sh
# shellcheck source=ci/tests/store-auth/lib.sh
source ci/tests/store-auth/lib.sh
# shellcheck source=ci/local/stack/stores/cassandra.sh
source ci/local/stack/stores/cassandra.sh

CQLSH_REQUIREMENTS=ci/local/cluster/images/cqlsh-requirements.txt
OTHER_KEYSPACE=store_auth_other
OUTBOUND_ROLE=newsfeed_outbound
INBOUND_ROLE=newsfeed_inbound

WORK=$(mktemp -d "$NEWSFEED_RUN/store-auth-cassandra.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/home" "$WORK/tmp" "$WORK/bin"
# a password with a single quote, which the script must double inside its CQL literal
OUTBOUND_PASSWORD="it's-$(head -c 12 /dev/urandom | base64 | tr '+/' '-_')"
INBOUND_PASSWORD=$(head -c 12 /dev/urandom | base64 | tr '+/' '-_')
ADMIN_PASSWORD=$(stack_secret cassandra-admin)


# cqlsh exactly as the init image pins it (cqlsh-requirements.txt), in a venv cached per requirements file
cqlsh_venv() {
  local venv; venv=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/venv-cqlsh-$(sha256sum "$CQLSH_REQUIREMENTS" | cut -c1-12)
  if [ ! -f "$venv/.done" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --only-binary=:all: -r "$CQLSH_REQUIREMENTS" >&2
    touch "$venv/.done"
  fi
  echo "$venv"
}

# cqlsh on the script's PATH records its arguments, then runs the real one: proof of what a command line carried
cqlsh_recorder() {
  local venv; venv=$(cqlsh_venv)
  printf '#!/bin/sh\nprintf "%%s\\n" "$*" >> %s/cqlsh-argv\nexec %s/bin/cqlsh "$@"\n' "$WORK" "$venv" > "$WORK/bin/cqlsh"
  chmod 755 "$WORK/bin/cqlsh"
}

# the ConfigMap's cassandra-init.cql (templates/init/schema-configmaps.yaml): the keyspace, then the schema file
init_cql() {
  { echo "CREATE KEYSPACE IF NOT EXISTS $KEYSPACE WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};"
    echo "USE $KEYSPACE;"
    cat "$SCHEMA_DIR/cassandra.cql"; } > "$WORK/cassandra-init.cql"
}

# job_apply LOG: the chart's cassandra.sh apply with the Job's environment (passwords exported, not on argv)
job_apply() {
  (
    export PATH="$WORK/bin:$PATH" HOME=$WORK/home TMPDIR=$WORK/tmp
    export CASSANDRA_CONTACT_POINTS="$STACK_HOST:$CASSANDRA_PORT" CASSANDRA_KEYSPACE=$KEYSPACE
    export CASSANDRA_USERNAME=$CASSANDRA_ADMIN CASSANDRA_PASSWORD=$ADMIN_PASSWORD
    export OUTBOUND_ROLE OUTBOUND_PASSWORD INBOUND_ROLE INBOUND_PASSWORD CASSANDRA_INIT_CQL=$WORK/cassandra-init.cql
    exec sh charts/newsfeed/files/init/cassandra.sh apply
  ) > "$1" 2>&1
}

# scrub FILE: prints it with every password of this test masked
scrub() {
  local text; text=$(cat "$1")
  local p
  for p in "$ADMIN_PASSWORD" "$OUTBOUND_PASSWORD" "$INBOUND_PASSWORD" "${old_inbound:-}"; do
    [ -z "$p" ] || text=${text//"$p"/'***'}
  done
  printf '%s\n' "$text" | sed 's/^/    /'
}

no_secret_in() {
  local p
  for p in "$ADMIN_PASSWORD" "$OUTBOUND_PASSWORD" "$INBOUND_PASSWORD" "${old_inbound:-}"; do
    [ -n "$p" ] || continue
    ! grep -qF -- "$p" "$@" || return 1
  done
}

password_of() { if [ "$1" = "$OUTBOUND_ROLE" ]; then echo "$OUTBOUND_PASSWORD"; else echo "$INBOUND_PASSWORD"; fi; }
# as ROLE CQL: runs CQL logged in as the role with its password; stderr kept in $WORK/err
as() { cql_as "$1" "$(password_of "$1")" -e "$2" > "$WORK/out" 2> "$WORK/err"; }
# refused ROLE CQL: the statement fails because the role lacks the permission (not for any other reason)
refused() { ! as "$1" "$2" && grep -q 'UnauthorizedException' "$WORK/err"; }
admin() { cql -e "$1"; }

# the permissions the admin sees for a role, one "resource permission" a line, sorted
permissions_of() { admin "LIST ALL PERMISSIONS OF $1 NORECURSIVE" | cut -f3,4 | sort | tr '\t' ' '; }
only_keyspace_grants() {
  [ "$(permissions_of "$1")" = "$(printf '<keyspace %s> MODIFY\n<keyspace %s> SELECT' "$KEYSPACE" "$KEYSPACE")" ]
}
login_not_superuser() {
  [ "$(admin "SELECT can_login, is_superuser FROM system_auth.roles WHERE role = '$1'")" = "$(printf 'true\tfalse')" ]
}
rotated() {
  ! cql_as "$INBOUND_ROLE" "$1" -e 'SELECT release_version FROM system.local' > /dev/null 2> "$WORK/err" &&
    grep -q 'AuthenticationException' "$WORK/err" && as "$INBOUND_ROLE" 'SELECT release_version FROM system.local'
}
still_granted() { as "$1" 'SELECT release_version FROM system.local' && only_keyspace_grants "$1" && login_not_superuser "$1"; }
wrong_password_refused() {
  ! cql_as "$1" "not-$(password_of "$1")" -e 'SELECT release_version FROM system.local' > /dev/null 2> "$WORK/err" &&
    grep -q 'AuthenticationException' "$WORK/err"
}

other_keyspace() {
  admin "CREATE KEYSPACE IF NOT EXISTS $OTHER_KEYSPACE
           WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
         CREATE TABLE IF NOT EXISTS $OTHER_KEYSPACE.t (k int PRIMARY KEY, v text);
         INSERT INTO $OTHER_KEYSPACE.t (k, v) VALUES (1, 'admin')"
}

role_checks() {
  local r=$1 id=$((RANDOM + 1000000))
  check "cassandra $r: logs in with its password" as "$r" 'SELECT release_version FROM system.local'
  check "cassandra $r: is a LOGIN role and not a SUPERUSER" login_not_superuser "$r"
  check "cassandra $r: granted exactly SELECT and MODIFY on keyspace $KEYSPACE" only_keyspace_grants "$r"
  check "cassandra $r: may MODIFY in $KEYSPACE (INSERT, DELETE)" as "$r" \
    "INSERT INTO $KEYSPACE.outbound (participant_id, occurred, story) VALUES ($id, now(), 'store-auth');
     DELETE FROM $KEYSPACE.outbound WHERE participant_id = $id"
  check "cassandra $r: may SELECT in $KEYSPACE" as "$r" "SELECT participant_id FROM $KEYSPACE.inbound LIMIT 1"
  check "cassandra $r: may not CREATE a table in $KEYSPACE" refused "$r" \
    "CREATE TABLE $KEYSPACE.store_auth_probe (k int PRIMARY KEY)"
  check "cassandra $r: may not DROP a table of $KEYSPACE" refused "$r" "DROP TABLE $KEYSPACE.outbound"
  check "cassandra $r: may not SELECT in another keyspace" refused "$r" "SELECT * FROM $OTHER_KEYSPACE.t"
  check "cassandra $r: may not MODIFY in another keyspace" refused "$r" \
    "INSERT INTO $OTHER_KEYSPACE.t (k, v) VALUES (2, '$r')"
  check "cassandra $r: may not read system_auth.roles" refused "$r" "SELECT role, salted_hash FROM system_auth.roles"
  check "cassandra $r: may not create roles" refused "$r" "CREATE ROLE store_auth_probe WITH LOGIN = true"
  check "cassandra $r: a wrong password is refused" wrong_password_refused "$r"
}

main() {
  cqlsh_recorder
  init_cql
  other_keyspace > /dev/null
  if job_apply "$WORK/apply1.log"; then
    ok "cassandra.sh apply (chart's schema Job script, pinned cqlsh) as the admin makes the schema and two roles"
  else
    fail "cassandra.sh apply (chart's schema Job script, pinned cqlsh) as the admin makes the schema and two roles"
    scrub "$WORK/apply1.log"
  fi
  role_checks "$OUTBOUND_ROLE"
  role_checks "$INBOUND_ROLE"
  check "cassandra: a password with a single quote (outbound's) logs in" as "$OUTBOUND_ROLE" \
    'SELECT release_version FROM system.local'

  # the second run rotates inbound's password (its Secret changed) and keeps outbound's
  local old_inbound=$INBOUND_PASSWORD
  INBOUND_PASSWORD=$(head -c 12 /dev/urandom | base64 | tr '+/' '-_')
  if job_apply "$WORK/apply2.log"; then ok "cassandra.sh apply run again (existing roles) succeeds"; else
    fail "cassandra.sh apply run again (existing roles) succeeds"; scrub "$WORK/apply2.log"
  fi
  check "cassandra $INBOUND_ROLE: a rotated password applies on the next apply, the old one is refused" \
    rotated "$old_inbound"
  local r
  for r in "$OUTBOUND_ROLE" "$INBOUND_ROLE"; do
    check "cassandra $r after the second apply: logs in, still only SELECT and MODIFY on $KEYSPACE, not SUPERUSER" \
      still_granted "$r"
  done
  check "cassandra.sh: no password on cqlsh's command line" no_secret_in "$WORK/cqlsh-argv"
  check "cassandra.sh: no password in its output" no_secret_in "$WORK/apply1.log" "$WORK/apply2.log"
  check "cassandra.sh: no credentials or statements file left in TMPDIR" test -z "$(ls -A "$WORK/tmp")"
  service_env outbound "CASSANDRA_USERNAME=$OUTBOUND_ROLE" "CASSANDRA_PASSWORD=$OUTBOUND_PASSWORD"
  service_env inbound "CASSANDRA_USERNAME=$INBOUND_ROLE" "CASSANDRA_PASSWORD=$INBOUND_PASSWORD"
  return "$failed"
}

main
