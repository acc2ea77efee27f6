# Solr 9.10.1 standalone in one JVM: ci/local/stack/solr/SolrLauncher.java runs JettySolrRunner (solr-core +
# solr-test-framework jars) at http://127.0.0.1:<port>/solr. Core `outbound` is found by core discovery;
# its conf/ is refreshed from the chart's configset on every start so both always agree.
# shellcheck shell=bash

solr_home_dir() { echo "$STACK_DIR/solr/home"; }

solr_start() {
  local dir=$STACK_DIR/solr home; home=$(solr_home_dir)
  local core=$home/$SOLR_CORE
  mkdir -p "$core/conf"
  [ -f "$home/solr.xml" ] || echo '<solr></solr>' > "$home/solr.xml"
  cp "$SCHEMA_DIR"/solr/conf/* "$core/conf/"
  printf 'name=%s\n' "$SOLR_CORE" > "$core/core.properties"
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
  record_pid solr "$pid"
}

solr_url() { echo "http://$STACK_HOST:$SOLR_PORT/solr"; }

# ready = the node answers and core `outbound` is loaded and answers a ping
solr_ready() { curl -fsS -m 5 "$(solr_url)/$SOLR_CORE/admin/ping?wt=json" | grep -q '"status":"OK"'; }
solr_schema() { :; }   # the core and its configset are laid down before start (solr_start)
solr_stop_signal() { echo TERM; }
