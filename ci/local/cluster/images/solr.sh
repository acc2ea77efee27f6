# A standalone Solr for the cluster suite's check of the chart's Solr PodMonitor (ci/tests/cluster/solr.sh): the
# jars and launcher the local stack runs Solr with (ci/local/stack/solr: solr-core's JettySolrRunner, fetched from
# Maven Central by ci/local/stack/fetch.sh), the JRE (jre.sh), busybox for the pod's start script, user 8983 like
# the official `solr` image. Not one of the chart's images: the chart's Solr is the Solr Operator's, which runs the
# official image (the Solr distribution tarball, not on Maven Central).
# shellcheck shell=bash

# the Solr version the local stack pins and fetches (ci/local/stack/lib.sh), read rather than sourced
SOLR_IMAGE_VERSION=$(sed -n 's/^SOLR_VERSION=\([^ ]*\).*/\1/p' "$REPO_ROOT/ci/local/stack/lib.sh")
solr_lib() { echo "$CACHE/stores/solr-$SOLR_IMAGE_VERSION/lib"; }
solr_launcher_src() { echo "$REPO_ROOT/ci/local/stack/solr/SolrLauncher.java"; }
solr_ref() { echo "localhost/newsfeed-solr:$SOLR_IMAGE_VERSION"; }
solr_inputs() {
  [ -f "$(solr_lib)/.pom.sha256" ] || { echo "$(solr_lib) missing: bash ci/local/stack/fetch.sh solr" >&2; return 1; }
  sha256sum "$(solr_lib)/.pom.sha256" "$(solr_launcher_src)" /bin/busybox "$IMAGES_SRC/jre.sh" "$IMAGES_SRC/solr.sh" \
    "$JDK_HOME/release"
}

# /opt/solr/lib (the jars), /opt/solr/launcher (SolrLauncher, compiled for the image's Java 17)
solr_rootfs() {
  local d=$1
  rootfs_init "$d"
  rootfs_busybox "$d"
  jre_rootfs "$d"
  rootfs_user "$d" 8983 solr
  mkdir -p "$d/opt/solr/lib" "$d/opt/solr/launcher"
  cp "$(solr_lib)"/*.jar "$d/opt/solr/lib/"
  "$JDK_HOME/bin/javac" -nowarn -proc:none --release 17 -cp "$(solr_lib)/*" -d "$d/opt/solr/launcher" "$(solr_launcher_src)"
}

solr_config() {
  printf '%s\n' --user 8983:8983 --workdir /var/solr --env HOME=/var/solr --env JAVA_HOME=/usr/lib/jvm/jre \
    --expose 8983/tcp --label "org.opencontainers.image.description=Solr $SOLR_IMAGE_VERSION (solr-core, standalone)"
}
