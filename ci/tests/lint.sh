#!/usr/bin/env bash
# Static checks that need no running system: shellcheck on every script, actionlint on CI workflows, the Java
# formatting of services/ (formatter-maven-plugin, pinned in services/pom.xml), the docs' commands and links, and
# the operators' versions against operators/versions.env (ci/tests/lint/).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${NEWSFEED_BIN:-$HOME/.cache/newsfeed/bin}
passed=0 failed=0
check() {  # check NAME CMD...: one counted test
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok - $name"; else failed=$((failed + 1)); echo "FAIL - $name"; fi
}

mapfile -t scripts < <(git ls-files --cached --others --exclude-standard -- '*.sh' .ci/run | sort -u)
for f in "${scripts[@]}"; do
  [ -f "$f" ] && check "shellcheck $f" shellcheck -x -S warning "$f"
done
mapfile -t workflows < <(git ls-files --cached --others --exclude-standard -- 'ci/github/workflows/*.yml' '.github/workflows/*.yml')
for f in "${workflows[@]}"; do
  [ -f "$f" ] && check "actionlint $f" "$BIN/actionlint" -shellcheck= "$f"
done
# every Java source formatted as services/eclipse-formatter.xml says; Maven's output (the first file that is not)
# only when one is not
java_formatted() {
  local out
  out=$(mvn -B -q -ntp -Dstyle.color=never -f services/pom.xml formatter:validate 2>&1) && return 0
  echo "$out"
  echo "run: mvn -f services/pom.xml formatter:format" >&2
  return 1
}
check "java sources formatted (formatter:validate)" java_formatted
# the charts' READMEs are generated from the documented values (`# --` comments) by helm-docs: regenerate them
# into a copy and compare, so a value added or changed without its README fails here
readmes_in_sync() {
  local tmp rc=0 chart; tmp=$(mktemp -d)
  cp -rL charts "$tmp/"
  (cd "$tmp/charts" && "$BIN/helm-docs" --log-level warning --chart-search-root .) || rc=1
  for chart in charts/*/; do
    diff -u "$chart/README.md" "$tmp/$chart/README.md" || { echo "run: (cd charts && helm-docs) to update $chart/README.md" >&2; rc=1; }
  done
  rm -rf "$tmp"
  return $rc
}
check "chart READMEs match helm-docs" readmes_in_sync

# a script with a #! line is run by its path (README and docs do: ci/bench/experiment.sh ...), so git must keep it executable
scripts_executable() {
  local f rc=0
  while IFS= read -r f; do
    [ -f "$f" ] && head -c2 "$f" | grep '^#!' > /dev/null || continue
    [ "$(git ls-files -s -- "$f" | cut -c1-6)" = 100755 ] || { echo "not executable in git: $f (git update-index --chmod=+x $f)"; rc=1; }
  done < <(git ls-files -- '*.sh' '*.py' .ci/run)
  return $rc
}
check "scripts with a #! line are executable" scripts_executable

# every relative link of README.md, docs/ and the READMEs leads to a file that exists, an #anchor to one of its headings
check "relative links in the README and docs resolve" python3 ci/tests/docs/links.py

# counted_lines PREFIX NAME CMD...: a checker that prints its own `ok - `/`FAIL - ` lines, each counted (with PREFIX
# before its text); one failure more when it exits non-zero without a FAIL line
counted_lines() {
  local prefix=$1 name=$2 out rc=0 line; shift 2
  out=$("$@") || rc=$?
  while IFS= read -r line; do
    case $line in
      "ok - "*) passed=$((passed + 1)); echo "ok - $prefix${line#ok - }" ;;
      "FAIL - "*) failed=$((failed + 1)); echo "FAIL - $prefix${line#FAIL - }" ;;
      "    "*) echo "$line" ;;   # a failure's details
    esac
  done <<< "$out"
  if [ "$rc" -ne 0 ] && ! grep -q '^FAIL - ' <<< "$out"; then
    failed=$((failed + 1)); echo "FAIL - $name exited $rc: $out"
  fi
}

# every command README.md and docs/ tell a user to run exists, and a suite runs it or ci/tests/docs/commands.tsv
# says why none does (one line per command)
counted_lines "documented command " ci/tests/docs/commands.py python3 ci/tests/docs/commands.py

# the operators' versions are set in operators/versions.env only: the scripts read it, operators/README.md's table,
# the docs and the kind workflow agree with it; and the check fails on a copy with wrong versions planted
counted_lines "" ci/tests/lint/operator_versions.py python3 ci/tests/lint/operator_versions.py
check "operator version check refuses planted drift (ci/tests/lint/operator_versions_drift.sh)" \
  bash ci/tests/lint/operator_versions_drift.sh

# no pipe into grep -q: its early exit kills the writer (SIGPIPE) and fails the pipeline under pipefail, at random
check "no pipe into grep -q in the shell scripts (ci/tests/lint/quiet_grep.py)" python3 ci/tests/lint/quiet_grep.py
planted_quiet_grep() {  # a planted pipe found, also over a line break; a comment, here-string or || is not one
  [ "$(python3 ci/tests/lint/quiet_grep.py ci/tests/lint/quiet_grep_planted.txt | grep -c ': a pipe into grep -q')" = 2 ]
}
check "the grep -q check finds planted pipes into grep -q" planted_quiet_grep

echo "lint: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
