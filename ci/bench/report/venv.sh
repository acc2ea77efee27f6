#!/usr/bin/env bash
# Creates (once) the Python venv of the report, ~/.cache/newsfeed/venv-report, with the pinned packages of
# ci/bench/report/requirements.txt, and prints its python. A changed requirements file gives a fresh install.
# Debian without the venv module: installs python3-venv with apt-get first.
set -euo pipefail
cd "$(dirname "$0")"
CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
VENV=$CACHE/venv-report
stamp=$VENV/.requirements-$(sha256sum requirements.txt | cut -c1-16)
log() { echo "[report-venv $(date +%T)] $*" >&2; }

if [ -x "$VENV/bin/python" ] && [ -f "$stamp" ]; then echo "$VENV/bin/python"; exit 0; fi
# one installer at a time (a test suite and `make demo` may both get here)
mkdir -p "$CACHE"
exec 9> "$CACHE/venv-report.lock"
flock 9
if [ -x "$VENV/bin/python" ] && [ -f "$stamp" ]; then echo "$VENV/bin/python"; exit 0; fi

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  log "python3 has no venv/ensurepip module: apt-get install python3-venv"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi
log "creating $VENV (first run only)"
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-input -r requirements.txt >&2
touch "$stamp"
echo "$VENV/bin/python"
