#!/usr/bin/env bash
# Copies the umbrella chart for an install with no chart repository: `cp -rL` (files/k6 links to k6/), the
# Bitnami redis/kafka dependencies dropped (ci/tests/charts/manifests.py strip-deps: their OCI registry is out of
# reach), the file:// service subcharts packaged. The same copy ci/tests/charts.sh installs; with redis and kafka
# disabled (values/local-node.yaml) nothing of them is missed.
# Usage: ci/local/cluster/offline-chart.sh OUT_DIR   (prints OUT_DIR/newsfeed)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT=${1:?usage: offline-chart.sh OUT_DIR}
BIN=${NEWSFEED_BIN:-${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/bin}
VENV=$(bash "$ROOT/ci/tests/charts/pyenv.sh")
rm -rf "$OUT"; mkdir -p "$OUT"
cp -rL "$ROOT/charts/." "$OUT/"
"$VENV/bin/python" "$ROOT/ci/tests/charts/manifests.py" strip-deps "$OUT/newsfeed/Chart.yaml" >/dev/null
rm -f "$OUT/newsfeed/Chart.lock" "$OUT"/newsfeed/charts/redis-*.tgz "$OUT"/newsfeed/charts/kafka-*.tgz
# helm keeps its repository config and cache beside the copy, never in the user's
HELM_CONFIG_HOME=$OUT/.helm/config HELM_CACHE_HOME=$OUT/.helm/cache HELM_DATA_HOME=$OUT/.helm/data \
  "$BIN/helm" dependency update --skip-refresh "$OUT/newsfeed" >&2
echo "$OUT/newsfeed"
