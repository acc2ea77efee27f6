#!/usr/bin/env bash
# Part "solr" of ci/tests/store-auth.sh: the chart's schema-Job script (charts/newsfeed/files/init/solr.py) runs
# `check` and `apply` for real, with the environment job-solr.yaml gives it (the Solr admin, search's user and
# password), against the stack's Solr with basic auth (standalone: core `outbound`). Then real HTTP requests prove
# what anonymous clients, search's user and a wrong password may and may not do, and the local Prometheus scrapes
# Solr's own metrics as the stack's admin. Prints `ok - `/`FAIL - ` lines; no
# password is printed or put on a command line (curl reads its login from a pipe).
# Needs: a stack up with NEWSFEED_STACK_AUTH=true (NEWSFEED_RUN, NEWSFEED_PORT_OFFSET, STACK_ENV exported).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
# shellcheck source=ci/local/stack/lib.sh
source ci/local/stack/lib.sh
# shellcheck source=ci/tests/store-auth/lib.sh
source ci/tests/store-auth/lib.sh
# shellcheck source=ci/local/stack/stores/solr.sh
source ci/local/stack/stores/solr.sh

SEARCH_USERNAME=newsfeed-search
SEARCH_PASSWORD="s'earch-$(head -c 12 /dev/urandom | base64 | tr '+/' '-_')"
ADMIN_PASSWORD=$(stack_secret solr-admin)
URL=$(solr_url)

WORK=$(mktemp -d "$NEWSFEED_RUN/store-auth-solr.XXXXXX")
trap 'rm -rf "$WORK"' EXIT


# job LOG ACTION: the chart's solr.py with the Job's environment (passwords exported, not on argv)
job() {
  (
    export SOLR_URL=$URL SOLR_COLLECTION=$SOLR_CORE CONFIGSET=newsfeed-outbound
    export CONFIGSET_DIR=$SCHEMA_DIR/solr/conf NUM_SHARDS=1 REPLICATION_FACTOR=1 PYTHONDONTWRITEBYTECODE=1
    SOLR_ADMIN_USERNAME=$(stack_env SOLR_ADMIN_USERNAME) SOLR_ADMIN_PASSWORD=$(stack_env SOLR_ADMIN_PASSWORD)
    export SOLR_ADMIN_USERNAME SOLR_ADMIN_PASSWORD SEARCH_USERNAME SEARCH_PASSWORD
    exec python3 charts/newsfeed/files/init/solr.py "$2"
  ) > "$1" 2>&1
}

scrub() {
  local text; text=$(cat "$1")
  local p
  for p in "$ADMIN_PASSWORD" "$SEARCH_PASSWORD"; do text=${text//"$p"/'***'}; done
  printf '%s\n' "$text" | sed 's/^/    /'
}
no_secret_in() { ! grep -qF -e "$ADMIN_PASSWORD" -e "$SEARCH_PASSWORD" "$@"; }

# http USER PASSWORD CURL_ARGS...: prints the HTTP status; USER "-" sends no login. The login reaches curl through a
# config on a pipe (quotes and backslashes escaped as curl's config syntax wants them).
http() {
  local user=$1 password=$2; shift 2
  local args=(-s -o "$WORK/body" -w '%{http_code}' -m 30)
  if [ "$user" = - ]; then curl "${args[@]}" "$@"; return; fi
  local login="$user:$password"
  login=${login//\\/\\\\}; login=${login//\"/\\\"}
  curl -K <(printf 'user = "%s"\n' "$login") "${args[@]}" "$@"
}
as_search() { http "$SEARCH_USERNAME" "$SEARCH_PASSWORD" "$@"; }
as_admin() { http admin "$ADMIN_PASSWORD" "$@"; }
# status WANT CMD...: CMD prints WANT
status() { local want=$1 got; shift; got=$("$@") || true; [ "$got" = "$want" ] || { echo "    got HTTP $got" >&2; return 1; }; }

add_doc() {
  as_search -H 'Content-Type: application/json' --data-binary \
    '[{"id":"store-auth-1","participant_id":1,"story":"store auth probe"}]' "$URL/$SOLR_CORE/update?commit=true"
}
find_doc() { as_search "$URL/$SOLR_CORE/select?q=id:store-auth-1&wt=json" >/dev/null && grep -q '"numFound":1' "$WORK/body"; }
delete_doc() {
  as_search -H 'Content-Type: application/json' --data-binary '{"delete":{"query":"id:store-auth-1"}}' \
    "$URL/$SOLR_CORE/update?commit=true"
}
set_user() {  # a security edit: search would give itself a new user
  as_search -H 'Content-Type: application/json' --data-binary '{"set-user":{"intruder":"pw-intruder"}}' \
    "$URL/admin/authentication"
}
grant_self() {
  as_search -H 'Content-Type: application/json' --data-binary \
    "{\"set-user-role\":{\"$SEARCH_USERNAME\":[\"admin\"]}}" "$URL/admin/authorization"
}

# the permissions' names as the admin reads them, one a line in their order
permissions() {
  as_admin "$URL/admin/authorization?wt=json" >/dev/null
  python3 -c 'import json,sys; [print(p.get("name")) for p in json.load(sys.stdin)["authorization"]["permissions"]]' \
    < "$WORK/body"
}
search_first() {
  [ "$(permissions | head -n 2 | sort | tr '\n' ' ')" = "newsfeed-search-select newsfeed-search-update " ]
}

main() {
  check "solr.py check (chart's schema Job script) as the admin: core $SOLR_CORE loaded" job "$WORK/check.log" check ||
    scrub "$WORK/check.log"
  if job "$WORK/apply1.log" apply; then
    ok "solr.py apply as the admin sets search's user, role and permissions and reloads core $SOLR_CORE"
  else
    fail "solr.py apply as the admin sets search's user, role and permissions and reloads core $SOLR_CORE"
    scrub "$WORK/apply1.log"
  fi
  permissions > "$WORK/permissions1"
  check "solr: an anonymous query is refused (401)" status 401 http - - "$URL/$SOLR_CORE/select?q=*:*"
  check "solr: an anonymous update is refused (401)" status 401 http - - -H 'Content-Type: application/json' \
    --data-binary '[{"id":"anonymous","participant_id":1}]' "$URL/$SOLR_CORE/update"
  check "solr: an anonymous core admin request is refused (401)" status 401 http - - "$URL/admin/cores?action=STATUS"
  check "solr $SEARCH_USERNAME: a wrong password is refused (401)" status 401 \
    http "$SEARCH_USERNAME" "not-$SEARCH_PASSWORD" "$URL/$SOLR_CORE/select?q=*:*"
  check "solr $SEARCH_USERNAME: may query core $SOLR_CORE (/select, 200)" status 200 \
    as_search "$URL/$SOLR_CORE/select?q=*:*"
  check "solr $SEARCH_USERNAME: may update core $SOLR_CORE (/update, 200)" status 200 add_doc
  check "solr $SEARCH_USERNAME: finds the document it added" find_doc
  check "solr $SEARCH_USERNAME: may delete it by query (/update, 200)" status 200 delete_doc
  check "solr $SEARCH_USERNAME: may not read the security settings (403)" status 403 \
    as_search "$URL/admin/authorization"
  check "solr $SEARCH_USERNAME: may not add a user (403)" status 403 set_user
  check "solr $SEARCH_USERNAME: may not give itself the admin role (403)" status 403 grant_self
  check "solr $SEARCH_USERNAME: may not read core admin status (403)" status 403 \
    as_search "$URL/admin/cores?action=STATUS"
  check "solr $SEARCH_USERNAME: may not reload core $SOLR_CORE (403)" status 403 \
    as_search "$URL/admin/cores?action=RELOAD&core=$SOLR_CORE"
  check "solr $SEARCH_USERNAME: may not read core $SOLR_CORE's config (403)" status 403 \
    as_search "$URL/$SOLR_CORE/config"
  check "solr: search's two permissions come first, ahead of the admin's rules" search_first

  if job "$WORK/apply2.log" apply; then ok "solr.py apply run again succeeds"; else
    fail "solr.py apply run again succeeds"; scrub "$WORK/apply2.log"
  fi
  permissions > "$WORK/permissions2"
  check "solr.py apply run again: the same permissions, none duplicated" cmp -s "$WORK/permissions1" "$WORK/permissions2"
  check "solr $SEARCH_USERNAME after the second apply: may query core $SOLR_CORE" status 200 \
    as_search "$URL/$SOLR_CORE/select?q=*:*"
  check "solr.py: no password in its output" no_secret_in "$WORK/check.log" "$WORK/apply1.log" "$WORK/apply2.log"
  check "the local Prometheus scrapes Solr's own metrics as the admin of stack.env, its password in a file of its own" \
    prometheus_scrapes_solr
  service_env search "SOLR_USERNAME=$SEARCH_USERNAME" "SOLR_PASSWORD=$SEARCH_PASSWORD"
  return "$failed"
}

# ci/local/prometheus.sh on this stack: its solr job up (a 401 would leave it down), the password only in
# prometheus/solr.password (mode 600), not in prometheus.yml
prometheus_scrapes_solr() {
  local dir=$NEWSFEED_RUN/prometheus url=http://127.0.0.1:$((19090 + ${NEWSFEED_PORT_OFFSET:-0})) up=false rc=0
  NEWSFEED_STACK_ENV=$STACK_ENV bash ci/local/prometheus.sh start >&2 || return 1
  for _ in $(seq 30); do
    if curl -sf "$url/api/v1/targets?scrapePool=solr" | jq -e '.data.activeTargets[0].health == "up"' >/dev/null; then
      up=true; break
    fi
    sleep 2
  done
  $up || { echo "solr target not up:"; curl -sf "$url/api/v1/targets?scrapePool=solr" | jq -c '.data.activeTargets[0] | {health, lastError}'; rc=1; }
  [ "$(stat -c %a "$dir/solr.password")" = 600 ] || { echo "solr.password is not mode 600"; rc=1; }
  cmp -s "$dir/solr.password" <(printf '%s' "$ADMIN_PASSWORD") || { echo "solr.password is not the admin's password"; rc=1; }
  if grep -qFf <(printf '%s\n' "$ADMIN_PASSWORD") "$dir/prometheus.yml"; then echo "the password is in prometheus.yml"; rc=1; fi
  bash ci/local/prometheus.sh stop >&2 || rc=1
  return "$rc"
}

main
