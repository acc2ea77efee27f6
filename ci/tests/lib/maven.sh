# Counting JUnit results of Maven runs for the suites (sourced). The caller defines `passed`, `failed` and `log`.
# shellcheck shell=bash disable=SC2154   # passed and failed belong to the sourcing suite

MVN=(mvn -B -ntp -Dstyle.color=never)
[ "${CI:-}" = true ] || MVN+=(-q)

# Adds the counts of the JUnit XML reports in a directory to passed/failed.
count_reports() {
  local dir=$1 f tests failures errors skipped
  for f in "$dir"/TEST-*.xml; do
    [ -f "$f" ] || continue
    read -r tests failures errors skipped < <(python3 - "$f" <<'PY'
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot()
print(s.get("tests", "0"), s.get("failures", "0"), s.get("errors", "0"), s.get("skipped", "0"))
PY
    ) || true
    if [ -z "${tests:-}" ]; then
      log "unreadable report $f"
      failed=$((failed + 1))
      continue
    fi
    # a skipped test is not a pass: ITs must not skip
    passed=$((passed + tests - failures - errors - skipped))
    failed=$((failed + failures + errors + skipped))
    if [ "$((failures + errors + skipped))" -gt 0 ]; then log "failed or skipped in $f"; fi
  done
}

# `run_maven NAME REPORT_DIRS... -- MAVEN ARGS`: a Maven run whose JUnit reports are counted; a run that fails
# without a failed test (compilation, a crashed fork) counts as one failure.
run_maven() {
  local name=$1; shift
  local dirs=()
  while [ "$1" != -- ]; do dirs+=("$1"); shift; done
  shift
  local d before=$failed rc=0
  for d in "${dirs[@]}"; do rm -rf "$d"; done
  log "running $name"
  "${MVN[@]}" "$@" || rc=$?
  for d in "${dirs[@]}"; do count_reports "$d"; done
  if [ "$rc" -ne 0 ] && [ "$failed" -eq "$before" ]; then
    log "$name: maven failed (rc $rc) without a failed test"
    failed=$((failed + 1))
  fi
}
