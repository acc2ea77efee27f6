#!/usr/bin/env bash
# Prints the release version: appVersion of charts/newsfeed/Chart.yaml, the one source of the images' tags.
set -euo pipefail
cd "$(dirname "$0")/../.."
chart=${1:-charts/newsfeed/Chart.yaml}
v=$(sed -nE 's/^appVersion:[[:space:]]*"?([^"#[:space:]]+)"?.*$/\1/p' "$chart")
[ -n "$v" ] || { echo "no appVersion in $chart" >&2; exit 1; }
echo "$v"
