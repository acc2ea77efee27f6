"""Minimal client of the Prometheus HTTP API (standard library only): range queries at a fixed step."""
import json
import math
import urllib.error
import urllib.parse
import urllib.request


class PrometheusError(RuntimeError):
    pass


def query_range(url, expr, start, end, step, timeout=30):
    """Returns [(labels, {unix_seconds: value})] of `expr` evaluated at start, start+step, ... <= end.

    NaN values (a histogram_quantile over no traffic) are left out, so an absent key means "no data".
    """
    params = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": step})
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/api/v1/query_range?{params}", timeout=timeout) as resp:
            body = json.load(resp)
    except urllib.error.HTTPError as e:
        raise PrometheusError(f"{expr}: HTTP {e.code}: {e.read().decode(errors='replace')[:300]}") from e
    except (urllib.error.URLError, OSError) as e:
        raise PrometheusError(f"cannot reach Prometheus at {url}: {e}") from e
    if body.get("status") != "success":
        raise PrometheusError(f"{expr}: {body.get('errorType')}: {body.get('error')}")
    series = []
    for result in body["data"]["result"]:
        points = {}
        for ts, value in result["values"]:
            v = float(value)
            if not math.isnan(v):
                points[int(float(ts))] = v
        labels = {k: v for k, v in result["metric"].items() if k != "__name__"}
        series.append((labels, points))
    return series
