# Solr 9.10.1 standalone in one JVM: ci/local/stack/solr/SolrLauncher.java runs JettySolrRunner (solr-core +
# solr-test-framework jars) at http://127.0.0.1:<port>/solr. Core `outbound` is found by core discovery;
# its conf/ is refreshed from the chart's configset on every start so both always agree. With NEWSFEED_STACK_AUTH:
# security.json in SOLR_HOME (BasicAuthPlugin, blockUnknown; RuleBasedAuthorizationPlugin) with SOLR_ADMIN (password:
# stack_secret solr-admin) allowed everything, as the Solr Operator's bootstrapped security.json has it.
# shellcheck shell=bash

SOLR_ADMIN="admin"

solr_home_dir() { echo "$STACK_DIR/solr/home"; }

solr_start() {
  local dir=$STACK_DIR/solr home; home=$(solr_home_dir)
  local core=$home/$SOLR_CORE
  mkdir -p "$core/conf"
  [ -f "$home/solr.xml" ] || echo '<solr></solr>' > "$home/solr.xml"
  cp "$SCHEMA_DIR"/solr/conf/* "$core/conf/"
  printf 'name=%s\n' "$SOLR_CORE" > "$core/core.properties"
  # written once: the security API (e.g. the chart's solr.py adding users) keeps its changes in this file
  if stack_auth && [ ! -f "$home/security.json" ]; then solr_security_json > "$home/security.json"; fi
  cat > "$dir/log4j2.xml" <<'CONF'
<Configuration status="warn">
  <Appenders>
    <Console name="OUT" target="SYSTEM_OUT"><PatternLayout pattern="%d{ISO8601} %-5p (%t) [%c{1.}] %m%n"/></Console>
  </Appenders>
  <Loggers>
    <Root level="WARN"><AppenderRef ref="OUT"/></Root>
    <Logger name="org.apache.solr.core.CoreContainer" level="INFO"/>
    <Logger name="org.apache.solr.core.SolrCore" level="INFO"/>
  </Loggers>
</Configuration>
CONF
  local lib=$STORES_CACHE/solr-$SOLR_VERSION/lib pid
  pid=$(spawn solr java -Xms256m -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true -Dhost="$STACK_HOST" \
    -Dlog4j2.configurationFile="$dir/log4j2.xml" -Dsolr.log.dir="$dir" -Dsolr.solr.home="$home" \
    -cp "$(compile_tool solr SolrLauncher):$lib/*" SolrLauncher "$home" "$SOLR_PORT" "$STACK_HOST")
  record_store_pid solr "$pid"
}

# Solr's form of a BasicAuthPlugin credential (ci/local/stack/solr/password_hash.py); the password comes on stdin
solr_password_hash() { python3 "$STACK_SRC/solr/password_hash.py"; }

# the admin may do everything, anyone else nothing until given a permission (e.g. by the chart's solr.py); the
# named permissions are the Solr Operator's, which solr.py puts the service's own ahead of
solr_security_json() {
  local credential; credential=$(printf '%s' "$(stack_secret solr-admin)" | solr_password_hash)
  cat <<JSON
{
  "authentication": {
    "class": "solr.BasicAuthPlugin", "blockUnknown": true, "forwardCredentials": false,
    "credentials": {"$SOLR_ADMIN": "$credential"}
  },
  "authorization": {
    "class": "solr.RuleBasedAuthorizationPlugin",
    "user-role": {"$SOLR_ADMIN": ["admin"]},
    "permissions": [
      {"name": "read", "role": "admin"}, {"name": "update", "role": "admin"},
      {"name": "security-read", "role": "admin"}, {"name": "security-edit", "role": "admin"},
      {"name": "all", "role": "admin"}
    ]
  }
}
JSON
}

solr_url() { echo "http://$STACK_HOST:$SOLR_PORT/solr"; }

# curl with the admin's login in auth mode; the login goes through a config on a pipe, not the command line
solr_curl() {
  if stack_auth; then
    curl -K <(printf 'user = "%s:%s"\n' "$SOLR_ADMIN" "$(stack_secret solr-admin)") "$@"
  else
    curl "$@"
  fi
}

# ready = the node answers and core `outbound` is loaded and answers a ping
solr_ready() { solr_curl -fsS -m 5 "$(solr_url)/$SOLR_CORE/admin/ping?wt=json" | grep '"status":"OK"' > /dev/null; }
solr_schema() { :; }   # the core and its configset are laid down before start (solr_start)
solr_stop_signal() { echo TERM; }

# auth mode: the admin's login for stack.env, under the names the chart's solr.py reads for its admin; not
# SOLR_USERNAME/SOLR_PASSWORD, which search reads: search would run as the admin and hide what its own user may not do
solr_admin_env() {
  echo "SOLR_ADMIN_USERNAME=$SOLR_ADMIN"
  echo "SOLR_ADMIN_PASSWORD=$(stack_secret solr-admin)"
}
