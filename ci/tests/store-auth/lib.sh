# What the parts of the store-auth suite share (sourced by ci/tests/store-auth/<part>.sh): their ok/FAIL lines, the
# admins' logins of the stack's stack.env, new passwords, and the services' logins they leave for the services part.
# shellcheck shell=bash disable=SC2034   # failed is read by the part that sources this

failed=0
ok() { echo "ok - $*"; }
fail() { echo "FAIL - $*"; failed=1; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else fail "$name"; fi; }

# stack_env NAME: one value of the stack's stack.env (an admin's login, as the stack names it)
stack_env() { sed -n "s/^$1=//p" "$STACK_ENV" | tail -n 1; }

new_password() { head -c 24 /dev/urandom | base64 | tr '+/' '-_' | tr -d '='; }

# service_env SERVICE NAME=VALUE...: leaves a service's login for the services part (ci/tests/store-auth/services.sh)
# in $NEWSFEED_RUN/service-env/SERVICE.env, as the chart's Secret would hold it; other parts' lines are kept
service_env() {
  local f=$NEWSFEED_RUN/service-env/$1.env kv; shift
  mkdir -p "${f%/*}"; chmod 700 "${f%/*}"
  (
    umask 077; touch "$f"
    for kv in "$@"; do
      { grep -v "^${kv%%=*}=" "$f" || true; printf '%s\n' "$kv"; } > "$f.tmp"
      mv "$f.tmp" "$f"
    done
  )
}
