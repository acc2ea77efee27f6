"""PNG charts of the per-minute report (matplotlib, headless): one picture per question a person asks.

  throughput.png          requests/min per HTTP route, operations/min, k6 requests/min
  latency-http.png        p50/p95/p99 per HTTP route (one panel each)
  latency-operations.png  p50/p95/p99 per entity x operation
  latency-stores.png      p50/p95/p99 per store client operation
  fanout.png              fan-out and search index delay percentiles, events/min, consumer lag
  k6.png                  k6 requests/min, error ratio and run-so-far p95 per request
"""
import datetime
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from per_minute import QUANTILES  # noqa: E402

QUANTILE_STYLE = {"0.5": ("p50", "tab:green"), "0.95": ("p95", "tab:orange"), "0.99": ("p99", "tab:red")}


def _times(ts):
    return [datetime.datetime.fromtimestamp(t, datetime.timezone.utc) for t in ts]


def _line(ax, ts, points, scale=1.0, **kw):
    xs = _times(ts)
    ys = [points[t] * scale if t in points else math.nan for t in ts]
    ax.plot(xs, ys, marker="o", markersize=3, **kw)


def _finish(ax, ts, title, ylabel):
    ax.set_title(title, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(True, alpha=0.3)
    ax.tick_params(labelsize=7)
    # one tick per whole minute, at most 8 of them (the data points are whole minutes)
    times = _times(ts)
    ax.set_xticks(times[::max(1, math.ceil(len(times) / 8))])
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M", tz=datetime.timezone.utc))
    ax.set_ylim(bottom=0)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="best")


def _grid(n, title, cols=3):
    cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.2 * rows), squeeze=False)
    fig.suptitle(title + " (UTC)", fontsize=11)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def _save(fig, out, name, saved):
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=100)
    plt.close(fig)
    saved.append(name)


def _no_data(out, name, title, saved):
    fig, (ax,) = _grid(1, title)
    ax.text(0.5, 0.5, "no data in this window", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    _save(fig, out, name, saved)


def _throughput(out, ts, sections, saved):
    panels = [(k, t) for k, t in (("http", "HTTP requests/min per route"), ("operation", "operations/min"),
                                  ("store", "store calls/min"), ("k6", "k6 requests/min (client side)"))
              if any(r.active() and not r.infra for r in sections.get(k, []))]
    if not panels:
        return _no_data(out, "throughput.png", "Throughput per minute", saved)
    fig, axes = _grid(len(panels), "Throughput per minute", cols=2)
    for ax, (kind, title) in zip(axes, panels):
        for r in sections[kind]:
            if r.active() and not r.infra:
                _line(ax, ts, r.per_minute, label=f"{r.service}: {r.operation}")
        _finish(ax, ts, title, "per minute")
    _save(fig, out, "throughput.png", saved)


def _latency(out, ts, rows, name, title, saved):
    rows = [r for r in rows if r.active() and not r.infra]
    if not rows:
        return _no_data(out, name, title, saved)
    fig, axes = _grid(len(rows), title)
    for ax, r in zip(axes, rows):
        for q in QUANTILES:
            label, color = QUANTILE_STYLE[q]
            _line(ax, ts, r.quantiles.get(q, {}), scale=1000, label=label, color=color)
        _finish(ax, ts, f"{r.service}: {r.operation}", "ms")
    _save(fig, out, name, saved)


def _fanout(out, ts, sections, lag, saved):
    fan = [r for r in sections.get("fanout", []) + sections.get("search_index", []) if r.active()]
    if not fan and not lag:
        return _no_data(out, "fanout.png", "Fan-out and search indexing", saved)
    fig, axes = _grid(len(fan) + 2, "Fan-out and search indexing", cols=2)
    for ax, r in zip(axes, fan):
        for q in QUANTILES:
            label, color = QUANTILE_STYLE[q]
            _line(ax, ts, r.quantiles.get(q, {}), label=label, color=color)
        _finish(ax, ts, f"{r.service}: {r.operation} delay", "seconds")
    ax = axes[len(fan)]
    for r in fan:
        _line(ax, ts, r.per_minute, label=f"{r.service}: {r.operation}")
    _finish(ax, ts, "events/min (fanned out, indexed)", "per minute")
    ax = axes[len(fan) + 1]
    for name, points in sorted(lag.items()):
        _line(ax, ts, points, label=name)
    _finish(ax, ts, "Kafka consumer lag", "records")
    _save(fig, out, "fanout.png", saved)


def _k6(out, ts, rows, saved):
    rows = [r for r in rows if r.active()]
    if not rows:
        return
    fig, axes = _grid(3, "k6 client view", cols=3)
    for r in rows:
        _line(axes[0], ts, r.per_minute, label=r.operation)
        _line(axes[1], ts, r.error_ratio, scale=100, label=r.operation)
        _line(axes[2], ts, r.quantiles.get("0.95", {}), scale=1000, label=r.operation)
    _finish(axes[0], ts, "requests/min", "per minute")
    _finish(axes[1], ts, "failed requests (expected_response=false)", "%")
    _finish(axes[2], ts, "p95 over the run so far (k6 trend stat)", "ms")
    _save(fig, out, "k6.png", saved)


def write_all(out, ts, sections, lag):
    """Writes every chart into `out`; returns the file names."""
    saved = []
    _throughput(out, ts, sections, saved)
    _latency(out, ts, sections.get("http", []), "latency-http.png", "HTTP latency per route", saved)
    _latency(out, ts, sections.get("operation", []), "latency-operations.png", "Operation latency", saved)
    _latency(out, ts, sections.get("store", []), "latency-stores.png", "Store client latency", saved)
    _fanout(out, ts, sections, lag, saved)
    _k6(out, ts, sections.get("k6", []), saved)
    return saved
