# Counting a driver's own test lines (sourced): `counted NAME CMD...` runs a program that prints `ok - ...` and
# `FAIL - ...` lines, adds them to the suite's passed/failed, and counts one failure when it exits non-zero
# without reporting one. The caller defines `passed`, `failed` and OUT (a directory for the driver's output).
# shellcheck shell=bash disable=SC2154   # passed, failed and OUT belong to the sourcing suite

counted() {
  local name=$1; shift
  local out=$OUT/.last-driver-output rc=0 p f
  "$@" | tee "$out" || rc=$?
  p=$(grep -c '^ok - ' "$out" || true)
  f=$(grep -c '^FAIL - ' "$out" || true)
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); echo "FAIL - $name (exit $rc, see above)"; fi
}
