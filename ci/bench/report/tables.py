"""What the per-minute report shows a person, as text cells: the header facts, one table per section and the
Kafka lag table. The Markdown (report.py) and HTML (html_report.py) writers only lay these out, so both always
hold the same rows.
"""
import time
from dataclasses import dataclass

from per_minute import QUANTILES, SECTIONS

TITLE = "Per-minute report"
NO_DATA = "No data in this window."
SECTION_COLUMNS = ("minute (UTC)", "service", "operation", "per min", "p50 ms", "p95 ms", "p99 ms", "errors/min")


@dataclass(frozen=True)
class Table:
    anchor: str          # id of its heading in the HTML
    title: str
    note: str
    columns: tuple
    first_number: int    # columns from this one on hold numbers (right-aligned)
    rows: list           # tuples of cells, as many as columns; empty: no data in this window


def utc(ts, fmt="%Y-%m-%d %H:%M"):
    return time.strftime(fmt, time.gmtime(ts))


def num(v, digits):
    return "" if v is None else f"{v:.{digits}f}"


def ms(v):
    """Milliseconds with 3 significant digits, at least 0.01 ms resolution."""
    if v is None:
        return ""
    m = v * 1000
    return f"{m:.2f}" if m < 10 else f"{m:.1f}" if m < 100 else f"{m:.0f}"


def quantiles_at(row, t):
    """The row's p50/p95/p99 in seconds at minute t, or None when it has no value at all in that minute."""
    q = [row.quantiles.get(k, {}).get(t) for k in QUANTILES]
    return None if t not in row.per_minute and all(v is None for v in q) else q


def facts(url, start, end, testid, ts):
    return [f"window: {utc(start, '%Y-%m-%d %H:%M:%S')} to {utc(end, '%H:%M:%S')} UTC, "
            f"{len(ts)} minute(s); Prometheus {url}",
            f"testid: {testid or '(all)'}",
            "each row is the minute ending at the time shown: rate over that minute x 60 and "
            "histogram_quantile over that minute's rates (recording rules of "
            "charts/newsfeed/files/prometheus/newsfeed.rules.yml); /metrics and /health/* are in the CSV only",
            "every minute and operation: per-minute.csv"]


def _section(sec, rows, ts):
    rows = [r for r in rows if not r.infra and r.active()]
    cells = []
    for t in ts:
        for r in rows:
            q = quantiles_at(r, t)
            if q is not None:
                cells.append((utc(t, "%H:%M"), r.service, r.operation, num(r.per_minute.get(t), 1),
                              *(ms(v) for v in q), num(r.errors_per_minute(t), 1)))
    return Table(sec.kind, sec.title, sec.quantile_note, SECTION_COLUMNS, 3, cells)


def _lag(ts, lag):
    names = sorted(lag)
    rows = [(utc(t, "%H:%M"), *(num(lag[n].get(t), 0) for n in names)) for t in ts] if names else []
    return Table("lag", "Kafka consumer lag (records, end of minute)", "", ("minute (UTC)", *names), 1, rows)


def tables(ts, sections, lag):
    return [*(_section(sec, sections.get(sec.kind, []), ts) for sec in SECTIONS), _lag(ts, lag)]
