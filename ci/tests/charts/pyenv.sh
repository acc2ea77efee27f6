#!/usr/bin/env bash
# The Python the chart checks run with: a venv under ~/.cache/newsfeed with pinned PyYAML (to read
# rendered manifests) and kubernetes-validate (only for its offline Kubernetes JSON schemas, used by
# kubeconform, made standalone into <venv>/k8s-schemas). Created once; prints the venv dir.
set -euo pipefail
PYYAML_VERSION=6.0.2
KUBERNETES_VALIDATE_VERSION=1.34.1   # schemas of Kubernetes v1.34, the control plane's version
VENV=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/venv-charts-$KUBERNETES_VALIDATE_VERSION
if [ ! -f "$VENV/.done" ]; then
  echo "[charts] creating $VENV (first run only)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  # --no-deps: kubernetes-validate's own validator is not used, only the schema files it ships
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps \
    "PyYAML==$PYYAML_VERSION" "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" >&2
  schemas=$(echo "$VENV"/lib/python3*/site-packages/kubernetes_validate/kubernetes-json-schema/v1.34.0-local-strict)
  "$VENV/bin/python" "$(dirname "${BASH_SOURCE[0]}")/manifests.py" k8s-schemas "$schemas" "$VENV/k8s-schemas"
  touch "$VENV/.done"
fi
echo "$VENV"
