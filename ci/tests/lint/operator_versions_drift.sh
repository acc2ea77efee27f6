#!/usr/bin/env bash
# The operator version check can fail: on a copy of the files it reads it passes as they are, then, with one wrong
# version planted in each kind of place (the README's table, a doc, install.sh, crds.sh, the kind workflow and
# script, a half-done upgrade in versions.env), it must fail and name every one of them.
# Usage: ci/tests/lint/operator_versions_drift.sh   (from anywhere; prints the check's output, indented, on failure)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
CHECK=ci/tests/lint/operator_versions.py
TMP=$(mktemp -d /tmp/newsfeed-operator-versions.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

while read -r f; do
  mkdir -p "$TMP/$(dirname "$f")"; cp -p "$f" "$TMP/$f"
done < <(python3 "$CHECK" --files)

if ! python3 "$CHECK" "$TMP" > "$TMP/pristine.out"; then
  echo "the check fails on an unchanged copy (so a failure below would prove nothing):"
  sed 's/^/    /' "$TMP/pristine.out"
  exit 1
fi

# plant FILE SED_EXPRESSION: the edit must change the file, or the case would test nothing
plant() {
  cp "$TMP/$1" "$TMP/.before"
  sed -i -E "$2" "$TMP/$1"
  if cmp -s "$TMP/.before" "$TMP/$1"; then echo "planting '$2' left $1 unchanged"; exit 1; fi
}
plant operators/README.md 's/^(\| cert-manager \|.*\| )v1\.21\.2( \| v1\.21\.2 \|)/\1v1.19.1\2/'
plant docs/kubernetes.md '$a cert-manager v1.19.1 comes first.'
plant operators/install.sh 's/"\$CERT_MANAGER_CHART_VERSION"\)/v1.19.1)/'
plant ci/local/control-plane/crds.sh 's/\$K6_OPERATOR_MODULE_VERSION/v1.4.0/'
plant .github/workflows/kind-e2e.yml 's/env\.SOLR_OPERATOR_CHART_VERSION/env.SOLR_CHART_VERSION/'
plant ci/release/kind-e2e.sh 's/ solr-operator=SOLR_OPERATOR//'
plant operators/versions.env 's/^CASS_OPERATOR_APP_VERSION=.*/CASS_OPERATOR_APP_VERSION=v1.24.0/'

rc=0
python3 "$CHECK" "$TMP" > "$TMP/drift.out" || rc=$?
missed=0
while read -r expected; do
  grep -qE -- "$expected" "$TMP/drift.out" || { echo "not reported: /$expected/"; missed=1; }
done <<'EOF'
cert-manager: chart version v1\.19\.1, pinned v1\.21\.2
docs/kubernetes\.md:[0-9]+: 'cert-manager v1\.19\.1'
operators/install\.sh:[0-9]+: CERT_MANAGER=.*v1\.19\.1
chart cert-manager v1\.21\.2 from
it installs v1\.19\.1 from https://charts\.jetstack\.io
pinned not taken: github\.com/grafana/k6-operator v1\.5\.0
env\.SOLR_CHART_VERSION is not a key of operators/versions\.env
the `pinned` step does not check solr-operator
CASS_OPERATOR: app v1\.24\.0, module v1\.23\.0
EOF
if [ "$rc" -eq 0 ] || [ "$missed" -ne 0 ]; then
  echo "check exit $rc on the planted drift; its output:"; sed 's/^/    /' "$TMP/drift.out"
  exit 1
fi
echo "# refused as expected: $(grep -c '^FAIL - ' "$TMP/drift.out") failed checks"
