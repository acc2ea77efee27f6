# What the experiment runners (ci/bench/experiment.sh, experiment/autoscaling.sh, experiment/drain.sh) share, sourced
# from the repository root as `source ci/bench/experiment/runner.sh NAME`: the run dir, log and die for messages
# tagged NAME, usage (the runner's header comment), and the options they all take.
# shellcheck shell=bash disable=SC2034   # the option variables belong to the sourcing runner

export NEWSFEED_RUN=${NEWSFEED_RUN:-$PWD/.run}
RUNNER=$1

log() { echo "[$RUNNER $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

# Takes an option every runner has, with its value: the k6 load (--scenario, --rate, --duration, --env), the release
# (--release, --namespace, --chart) and --out. In the option loop: `if runner_option "$@"; then shift 2; continue; fi`.
runner_option() {
  case $1 in
    --scenario) SCENARIO=$2 ;;
    --rate) RATE=$2 ;;
    --duration) DURATION=$2 ;;
    --env) K6_ENV+=("$2") ;;
    --release) RELEASE=$2 ;;
    --namespace) NAMESPACE=$2 ;;
    --chart) CHART=$2 ;;
    --out) OUT=$2 ;;
    *) return 1 ;;
  esac
}

# For a runner that works on a release itself (autoscaling, drain): kubectl and helm are there, and OUT (by default
# $NEWSFEED_RUN/experiments/NAME-<UTC time>, NAME its argument) exists and is absolute. Sets STAMP, the UTC time.
release_run_dir() {
  command -v kubectl >/dev/null && command -v helm >/dev/null || die "kubectl and helm must be on PATH"
  STAMP=$(date -u +%Y%m%dt%H%M%Sz)
  OUT=${OUT:-$NEWSFEED_RUN/experiments/$1-$STAMP}
  mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
}
