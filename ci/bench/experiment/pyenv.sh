#!/usr/bin/env bash
# Prints a Python interpreter that can import matplotlib, for the experiment's chart:
#   1. $EXPERIMENT_PYTHON when set;
#   2. the report venv (ci/bench/report/venv.sh, ~/.cache/newsfeed/venv-report), so the project caches one matplotlib;
#   3. else its own venv ~/.cache/newsfeed/venv-experiment-mpl<version> with a pinned matplotlib.
set -euo pipefail
cd "$(dirname "$0")/../../.."
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
MATPLOTLIB_VERSION=3.9.4   # the report venv's pin

has_matplotlib() { [ -x "$1" ] && "$1" -c 'import matplotlib' 2>/dev/null; }

if [ -n "${EXPERIMENT_PYTHON:-}" ]; then
  has_matplotlib "$EXPERIMENT_PYTHON" || { echo "EXPERIMENT_PYTHON=$EXPERIMENT_PYTHON cannot import matplotlib" >&2; exit 1; }
  echo "$EXPERIMENT_PYTHON"; exit 0
fi
if [ -f ci/bench/report/venv.sh ] && py=$(bash ci/bench/report/venv.sh) && has_matplotlib "$py"; then
  echo "$py"; exit 0
fi

VENV=$CACHE/venv-experiment-mpl$MATPLOTLIB_VERSION
if ! has_matplotlib "$VENV/bin/python"; then
  echo "creating $VENV (matplotlib $MATPLOTLIB_VERSION)" >&2
  mkdir -p "$CACHE"
  exec 9> "$VENV.lock"
  flock 9
  if ! has_matplotlib "$VENV/bin/python"; then
    rm -rf "$VENV"
    python3 -m venv "$VENV" >&2
    "$VENV/bin/pip" install -q --disable-pip-version-check --no-input "matplotlib==$MATPLOTLIB_VERSION" >&2
  fi
fi
echo "$VENV/bin/python"
