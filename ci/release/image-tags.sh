#!/usr/bin/env bash
# The image name and tags of one service for CI, as GITHUB_OUTPUT lines:
#   version=<appVersion>   image=ghcr.io/newsfeed-benchmark/newsfeed-<service>   tags=<image>:<appVersion>,<image>:sha-<7>
# On a git tag, the tag must be v<appVersion>: a release never publishes images the chart does not point at.
# Usage: ci/release/image-tags.sh SERVICE   (GITHUB_SHA, GITHUB_REF_TYPE, GITHUB_REF_NAME from Actions)
set -euo pipefail
cd "$(dirname "$0")/../.."
service=${1:?usage: image-tags.sh SERVICE}
[ -f "services/$service/pom.xml" ] || { echo "no service $service (services/$service/pom.xml)" >&2; exit 1; }
version=$(bash ci/release/app-version.sh)
if [ "${GITHUB_REF_TYPE:-}" = tag ] && [ "${GITHUB_REF_NAME:-}" != "v$version" ]; then
  echo "git tag ${GITHUB_REF_NAME} does not match the chart appVersion $version (expected v$version)" >&2
  exit 1
fi
sha=${GITHUB_SHA:-$(git rev-parse HEAD)}
image=${IMAGE_PREFIX:-ghcr.io/newsfeed-benchmark/newsfeed-}$service
echo "version=$version"
echo "image=$image"
echo "tags=$image:$version,$image:sha-${sha:0:7}"
