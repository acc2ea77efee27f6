# The run dirs whose processes a CPU split (cpu_split.py) counts as this run's: the services' NEWSFEED_RUN and the
# stores' (the dir of NEWSFEED_STACK_ENV, when the stack is shared). Sourced; prints one dir a line.
# shellcheck shell=bash
cpu_dirs() {
  local stack_env=${NEWSFEED_STACK_ENV:-$NEWSFEED_RUN/stack.env}
  printf '%s\n' "$NEWSFEED_RUN" "$(dirname "$(realpath "$stack_env")")" | sort -u
}
