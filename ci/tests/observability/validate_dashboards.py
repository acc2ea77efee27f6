"""Checks Grafana dashboard JSON files against the series that really exist (standard library only).

For every dashboard: valid JSON; a uid (unique over all files) and a title; a `datasource` variable of type
datasource (prometheus) that every panel and target uses as ${datasource}; unique panel ids; every target has
an expr; and every metric name in a target expr or a variable query is either recorded by the rules file or
listed in the allow-list of raw metrics - so a typo in a metric name fails.
Usage: validate_dashboards.py --rules newsfeed.rules.yml --allow raw-metrics.txt DASHBOARD.json...
Exit status 1 when any dashboard has an error; one line per dashboard either way.
"""
import argparse
import json
import re
import sys

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
            "offset", "atan2", "inf", "nan", "Inf", "NaN"}
GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)")
STRINGS = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`')
GRAFANA_VARS = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\[\[[^\]]*\]\]")
NAME_MATCHER = re.compile(r'__name__\s*(=~|!~|!=|=)\s*"((?:\\.|[^"\\])*)"')
TOKENS = re.compile(r"(?P<num>\d[\w.]*)|(?P<id>[A-Za-z_:][A-Za-z0-9_:]*)")
LABEL_VALUES = re.compile(r"^\s*label_values\s*\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$", re.S)


def metric_names(expr):
    """Metric names an expr selects. Raises ValueError for what cannot be checked (a regex on __name__)."""
    names = set()
    expr = GRAFANA_VARS.sub("X", expr)
    for op, value in NAME_MATCHER.findall(expr):
        if op != "=":
            raise ValueError(f"__name__{op}\"{value}\" cannot be checked: select metrics by their plain name")
        names.add(value)
    expr = STRINGS.sub('""', expr)
    expr = re.sub(r"#[^\n]*", "", expr)
    # label matchers, ranges/subqueries and grouping label lists hold label names, never metric names
    for pattern in (r"\{[^{}]*\}", r"\[[^\[\]]*\]"):
        expr = re.sub(pattern, " ", expr)
    expr = GROUPING.sub(" ", expr)
    for m in TOKENS.finditer(expr):
        word = m.group("id")
        if not word or word in KEYWORDS:
            continue
        if re.match(r"\s*\(", expr[m.end():]):
            continue  # a function or an aggregation
        names.add(word)
    return names


def variable_query(var):
    q = var.get("query", "")
    if isinstance(q, dict):
        q = q.get("query", "")
    if var.get("type") != "query" or not q:
        return None
    m = LABEL_VALUES.match(q)
    if m:
        return m.group(1)
    if re.match(r"^\s*label_values\s*\(\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$", q):
        return ""  # label_values(label): every series, no metric name
    q = re.sub(r"^\s*query_result\s*\((.*)\)\s*$", r"\1", q, flags=re.S)
    return q


def panels(items):
    for p in items:
        yield p
        yield from panels(p.get("panels", []))


def load_known(rules_path, allow_path):
    with open(rules_path) as f:
        recorded = set(re.findall(r"^\s*-?\s*record:\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*$", f.read(), re.M))
    with open(allow_path) as f:
        raw = {line.split("#", 1)[0].strip() for line in f} - {""}
    return recorded, raw


def check_dashboard(path, recorded, raw, uids):
    errors, stats = [], {"panels": 0, "targets": 0, "recorded_only": 0}
    try:
        with open(path) as f:
            dash = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        return [f"not valid JSON: {e}"], stats
    uid = dash.get("uid")
    if not uid:
        errors.append("no uid")
    elif uid in uids:
        errors.append(f"uid {uid} also used by {uids[uid]}")
    else:
        uids[uid] = path
    if not dash.get("title"):
        errors.append("no title")
    variables = dash.get("templating", {}).get("list", [])
    ds = [v for v in variables if v.get("name") == "datasource"]
    if not ds or ds[0].get("type") != "datasource" or ds[0].get("query") != "prometheus":
        errors.append("no variable `datasource` of type datasource with query prometheus")

    def check_expr(where, expr):
        try:
            names = metric_names(expr)
        except ValueError as e:
            errors.append(f"{where}: {e}")
            return set()
        for name in sorted(names - recorded - raw):
            errors.append(f"{where}: unknown metric {name} (neither recorded by the rules nor in the allow-list)")
        return names

    for v in variables:
        q = variable_query(v)
        if q:
            check_expr(f"variable {v.get('name')}", q)
            if (v.get("datasource") or {}).get("uid") != "${datasource}":
                errors.append(f"variable {v.get('name')}: datasource is not ${{datasource}}")

    ids = {}
    for p in panels(dash.get("panels", [])):
        stats["panels"] += 1
        pid, title = p.get("id"), p.get("title", "")
        where = f"panel {pid} '{title}'"
        if pid is None:
            errors.append(f"panel '{title}' has no id")
        elif pid in ids:
            errors.append(f"panel id {pid} used by '{ids[pid]}' and '{title}'")
        else:
            ids[pid] = title
        if p.get("type") != "row" and "gridPos" not in p:
            errors.append(f"{where}: no gridPos")
        targets = p.get("targets", [])
        if p.get("type") not in ("row", "text") and not targets:
            errors.append(f"{where}: no query")
        if targets and (p.get("datasource") or {}).get("uid") != "${datasource}":
            errors.append(f"{where}: datasource is not ${{datasource}}")
        refs = set()
        for t in targets:
            stats["targets"] += 1
            ref = t.get("refId")
            if not ref or ref in refs:
                errors.append(f"{where}: missing or repeated refId {ref!r}")
            refs.add(ref)
            if "datasource" in t and (t["datasource"] or {}).get("uid") != "${datasource}":
                errors.append(f"{where} {ref}: datasource is not ${{datasource}}")
            expr = t.get("expr", "")
            if not expr.strip():
                errors.append(f"{where} {ref}: empty expr")
                continue
            names = check_expr(f"{where} {ref}", expr)
            if names and names <= recorded:
                stats["recorded_only"] += 1
    if not stats["panels"]:
        errors.append("no panels")
    return errors, stats


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", required=True)
    p.add_argument("--allow", required=True)
    p.add_argument("dashboards", nargs="+")
    args = p.parse_args()
    recorded, raw = load_known(args.rules, args.allow)
    if not recorded:
        print(f"no `record:` rule in {args.rules}", file=sys.stderr)
        return 1
    uids, failed = {}, False
    for path in args.dashboards:
        errors, s = check_dashboard(path, recorded, raw, uids)
        if errors:
            failed = True
            print(f"FAIL {path}")
            for e in errors:
                print(f"  {e}")
        else:
            print(f"ok {path}: {s['panels']} panels, {s['targets']} queries, "
                  f"{s['recorded_only']} on recorded series only")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
