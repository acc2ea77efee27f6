# seconds_of D: a k6 duration (1h2m3s, 90s, 500ms) in seconds; fails on anything else. Sourced.
# shellcheck shell=bash
seconds_of() {
  local d=$1 total=0 n unit
  [[ $d =~ ^([0-9]+(\.[0-9]+)?(h|ms|m|s))+$ ]] || return 1
  while [[ $d =~ ^([0-9]+(\.[0-9]+)?)(h|ms|m|s)(.*)$ ]]; do
    n=${BASH_REMATCH[1]} unit=${BASH_REMATCH[3]} d=${BASH_REMATCH[4]}
    case $unit in h) total=$(awk -v t="$total" -v n="$n" 'BEGIN{print t+n*3600}') ;;
      m) total=$(awk -v t="$total" -v n="$n" 'BEGIN{print t+n*60}') ;;
      s) total=$(awk -v t="$total" -v n="$n" 'BEGIN{print t+n}') ;;
      ms) total=$(awk -v t="$total" -v n="$n" 'BEGIN{print t+n/1000}') ;; esac
  done
  echo "$total"
}
