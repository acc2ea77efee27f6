# A suite's own run dir (sourced): `suite_run_dir NAME` makes a fresh /tmp/newsfeed-NAME.XXXXXX for the suite's
# stack, services, logs and reports and exports it as NEWSFEED_RUN.
# shellcheck shell=bash

suite_run_dir() {
  NEWSFEED_RUN=$(mktemp -d "/tmp/newsfeed-$1.XXXXXX")
  export NEWSFEED_RUN
  chmod 755 "$NEWSFEED_RUN"   # PostgreSQL runs as the postgres user and must reach its data dir
}
