"""Minimal client of the Prometheus HTTP API (standard library only), shared by the reports, the experiments'
measurements and the observability and tracing suites: any API path, instant queries, range queries at a fixed step.
Every failure (Prometheus not reachable, an HTTP error, a query it rejects) is a PrometheusError naming what was asked.
"""
import json
import math
import urllib.error
import urllib.parse
import urllib.request


class PrometheusError(RuntimeError):
    pass


def api(url, path, timeout=30, **params):
    """The `data` of GET <url>/api/v1/<path>?<params> (path e.g. "query", "series", "query_exemplars")."""
    what = params.get("query") or params.get("match[]") or path
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/api/v1/{path}?{urllib.parse.urlencode(params)}",
                                    timeout=timeout) as resp:
            body = json.load(resp)
    except urllib.error.HTTPError as e:
        raise PrometheusError(f"{what}: HTTP {e.code}: {e.read().decode(errors='replace')[:300]}") from e
    except (urllib.error.URLError, OSError) as e:
        raise PrometheusError(f"cannot reach Prometheus at {url}: {e}") from e
    if body.get("status") != "success":
        raise PrometheusError(f"{what}: {body.get('errorType')}: {body.get('error')}")
    return body["data"]


def query(url, expr, at=None, timeout=30):
    """Instant query at unix time `at` (default: now): [(labels, value)] with the labels as Prometheus gives them
    (__name__ included); a scalar answer is one ({}, value). NaN stays NaN: the caller says what it means."""
    params = {"query": expr} if at is None else {"query": expr, "time": f"{at:.3f}"}
    data = api(url, "query", timeout, **params)
    if data["resultType"] == "scalar":
        return [({}, float(data["result"][1]))]
    return [(r["metric"], float(r["value"][1])) for r in data["result"]]


def query_range(url, expr, start, end, step, timeout=30):
    """Returns [(labels, {unix_seconds: value})] of `expr` evaluated at start, start+step, ... <= end.

    NaN values (a histogram_quantile over no traffic) are left out, so an absent key means "no data".
    """
    data = api(url, "query_range", timeout, query=expr, start=start, end=end, step=step)
    series = []
    for result in data["result"]:
        points = {}
        for ts, value in result["values"]:
            v = float(value)
            if not math.isnan(v):
                points[int(float(ts))] = v
        labels = {k: v for k, v in result["metric"].items() if k != "__name__"}
        series.append((labels, points))
    return series
