#!/usr/bin/env bash
# check_dashboard_schema.sh DASHBOARD.json...: each dashboard against Grafana's own dashboard schema, the
# `Dashboard` type of the npm package @grafana/schema (pinned in ci/local/tools.sh), compiled by TypeScript in strict
# mode: a field the schema does not know, a missing required one or a value of the wrong type fails, with
# tsc's message naming the line of the JSON (the generated file is the JSON after one line of prelude).
set -euo pipefail
SCHEMA=${NEWSFEED_CACHE:-$HOME/.cache/newsfeed}/grafana-schema
[ -x "$SCHEMA/node_modules/.bin/tsc" ] || { echo "missing @grafana/schema and typescript (bash ci/local/tools.sh npm)" >&2; exit 1; }
[ $# -gt 0 ] || { echo "usage: $0 DASHBOARD.json..." >&2; exit 2; }
# inside the package dir, so `@grafana/schema` resolves from its node_modules
work=$(mktemp -d "$(realpath "$SCHEMA")/check.XXXXXX")
trap 'rm -rf "$work"' EXIT
i=0
for f in "$@"; do
  i=$((i + 1))
  { printf "import type { Dashboard } from '@grafana/schema'; export const dashboard: Dashboard =\n"
    cat "$f"; printf ';\n'; } > "$work/d$i.ts"
  echo "d$i.ts: $f" >> "$work/files.txt"
done
cat > "$work/tsconfig.json" <<'JSON'
{"compilerOptions": {"strict": true, "noEmit": true, "module": "nodenext", "moduleResolution": "nodenext",
 "target": "es2022", "skipLibCheck": true}, "include": ["*.ts"]}
JSON
if ! out=$(cd "$work" && "$SCHEMA/node_modules/.bin/tsc" -p . 2>&1); then
  # d1.ts(41,5) is line 40 of the first dashboard
  echo "$out" | python3 -c '
import re, sys
files = dict(line.rstrip("\n").split(": ", 1) for line in open(sys.argv[1]))
for line in sys.stdin:
    sys.stderr.write(re.sub(r"^(d\d+\.ts)\((\d+),\d+\)", lambda m: f"{files[m[1]]}:{int(m[2]) - 1}", line))
' "$work/files.txt"
  exit 1
fi
