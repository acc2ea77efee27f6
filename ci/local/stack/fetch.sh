#!/usr/bin/env bash
# Fetches the pinned jars of the Java stores from Maven Central into ~/.cache/newsfeed/stores/<store>-<version>/lib
# (one classpath per store: their dependencies conflict) and compiles the small Java helpers beside them.
# Warm runs touch no network: a lib dir is reused while the pom it came from is unchanged.
# Usage: ci/local/stack/fetch.sh [pom...]   (default: all of ci/local/stack/{kafka,cassandra,solr,cql,jmx-exporter}/pom.xml)
set -euo pipefail
# shellcheck source=ci/local/stack/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.8.1

fetch_lib() {
  local pom=$STACK_SRC/$1/pom.xml dir; dir=$STORES_CACHE/$(cache_name "$1")
  local want; want=$(sha256sum "$pom" | cut -d' ' -f1)
  if [ -f "$dir/lib/.pom.sha256" ] && [ "$(cat "$dir/lib/.pom.sha256")" = "$want" ]; then return 0; fi
  log "fetching $1 jars into $dir/lib (first run only)"
  mkdir -p "$dir"; rm -rf "$dir/lib.tmp"
  mvn -B -q -Dstyle.color=never -f "$pom" "$DEPENDENCY_PLUGIN:copy-dependencies" -DincludeScope=runtime \
    -DoutputDirectory="$dir/lib.tmp" >&2
  echo "$want" > "$dir/lib.tmp/.pom.sha256"
  rm -rf "${dir:?}/lib"; mv "$dir/lib.tmp" "$dir/lib"
}

main() {
  local poms=("$@")
  [ ${#poms[@]} -gt 0 ] || poms=(kafka cassandra solr cql jmx-exporter)
  # one at a time: parallel Maven runs may write the same artifact into ~/.m2 at once
  for p in "${poms[@]}"; do fetch_lib "$p"; done
  compile_tool kafka KafkaTool >/dev/null
  compile_tool cql Cql >/dev/null
  compile_tool solr SolrLauncher >/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
