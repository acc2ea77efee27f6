#!/bin/sh
# wait-for.sh WHAT CMD [ARG...]: run CMD every POLL_INTERVAL_SECONDS until it succeeds; give up after
# WAIT_TIMEOUT_SECONDS. The init containers of the schema Jobs use it to wait for their store, so the Jobs can be
# created in the same release as the stores' custom resources (no Helm hook ordering involved).
what=$1
shift
deadline=$(( $(date +%s) + ${WAIT_TIMEOUT_SECONDS:-1800} ))
until "$@" > /tmp/wait-for.out 2>&1; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "timed out after ${WAIT_TIMEOUT_SECONDS:-1800}s waiting for $what; last attempt said:" >&2
    cat /tmp/wait-for.out >&2
    exit 1
  fi
  echo "waiting for $what: $(tail -n 1 /tmp/wait-for.out)"
  sleep "${POLL_INTERVAL_SECONDS:-5}"
done
echo "$what is ready"
