"""Collects the per-minute rows of the report from the recorded series of newsfeed.rules.yml.

Every row is one minute x one operation: the value recorded at the end of that minute, i.e. rate over the
last minute x 60 and histogram_quantile over the last minute's rates (the rules run every 30s, so the value
read at minute t is at most 30s older than t).
"""
from dataclasses import dataclass, field

from prom_api import query_range

QUANTILES = ("0.5", "0.95", "0.99")
# scrapes and probes: kept in the CSV, left out of the Markdown tables and charts
INFRA_ROUTES = ("/metrics", "/health/live", "/health/ready")


@dataclass(frozen=True)
class Section:
    kind: str            # CSV `kind`
    title: str           # Markdown heading
    keys: tuple          # labels identifying one row series
    label: object        # labels -> display name of the operation
    per_minute: str
    error_ratio: str = ""
    quantile: str = ""
    quantile_note: str = ""


SECTIONS = (
    Section("http", "HTTP requests per route", ("service", "route", "method"),
            lambda l: f"{l.get('method', '')} {l.get('route', '')}",
            "service_route_method:newsfeed_http_server_requests:per_minute",
            "service_route_method:newsfeed_http_server_requests:error_ratio_rate1m",
            "service_route_method:newsfeed_http_server_requests_seconds:histogram_quantile"),
    Section("operation", "Operations (entity x operation)", ("service", "entity", "operation"),
            lambda l: f"{l.get('entity', '')} {l.get('operation', '')}",
            "service_entity_operation:newsfeed_operation:per_minute",
            "service_entity_operation:newsfeed_operation:error_ratio_rate1m",
            "service_entity_operation:newsfeed_operation_seconds:histogram_quantile"),
    Section("store", "Store clients", ("service", "store", "operation"),
            lambda l: f"{l.get('store', '')} {l.get('operation', '')}",
            "service_store_operation:newsfeed_store_client:per_minute",
            "service_store_operation:newsfeed_store_client:error_ratio_rate1m",
            "service_store_operation:newsfeed_store_client_seconds:histogram_quantile"),
    Section("fanout", "Fan-out delay (post -> last inbound row)", ("service",), lambda l: "fan-out",
            "service:newsfeed_fanout_delay:per_minute", "",
            "service:newsfeed_fanout_delay_seconds:histogram_quantile"),
    Section("search_index", "Search index delay (post -> Solr)", ("service",), lambda l: "index",
            "service:newsfeed_search_index_delay:per_minute", "",
            "service:newsfeed_search_index_delay_seconds:histogram_quantile"),
    Section("k6", "k6 client view", ("testid", "scenario", "name", "method"),
            lambda l: f"{l.get('scenario', '')} {l.get('method', '')} {l.get('name', '')}",
            "testid_scenario_name_method:k6_http_reqs:per_minute",
            "testid_scenario_name_method:k6_http_reqs:error_ratio_rate1m",
            "testid_scenario_name_method:k6_http_req_duration_seconds:trend_quantile",
            "k6 computes its percentiles over the whole run so far, not per minute"),
)
LAG = "group_topic:newsfeed_kafka_consumer_lag_records:sum"


@dataclass
class Row:
    """One operation of one section over the report's minutes."""
    kind: str
    service: str
    operation: str
    infra: bool
    per_minute: dict = field(default_factory=dict)    # unix -> requests per minute
    error_ratio: dict = field(default_factory=dict)   # unix -> 0..1
    quantiles: dict = field(default_factory=dict)     # "0.95" -> {unix -> seconds}

    def errors_per_minute(self, ts):
        if ts in self.per_minute and ts in self.error_ratio:
            return self.per_minute[ts] * self.error_ratio[ts]
        return None

    def active(self):
        return any(v > 0 for v in self.per_minute.values()) or any(self.quantiles.get(q) for q in QUANTILES)


def minutes(start, end):
    """Ends of the whole minutes whose 1m window lies in [start, end]; at least the end itself."""
    first = -(-(start + 60) // 60) * 60
    return list(range(first, end + 1, 60)) or [end]


def _selector(testid):
    return '{testid="%s"}' % testid.replace("\\", "\\\\").replace('"', '\\"') if testid else ""


def collect(url, start, end, testid=None):
    """Returns (timestamps, {kind: [Row]}, lag {group/topic: {unix: records}})."""
    ts = minutes(start, end)
    q_start, q_end = ts[0], ts[-1]
    sections = {}
    for sec in SECTIONS:
        sel = _selector(testid) if sec.kind == "k6" else ""
        rows = {}

        def row_for(labels):
            key = tuple(labels.get(k, "") for k in sec.keys)
            if key not in rows:
                service = "k6" if sec.kind == "k6" else labels.get("service", "")
                if sec.kind == "k6" and not testid:
                    service = f"k6 {labels.get('testid', '')}"
                rows[key] = Row(sec.kind, service, sec.label(labels), labels.get("route") in INFRA_ROUTES)
            return rows[key]

        for labels, points in query_range(url, sec.per_minute + sel, q_start, q_end, 60):
            row_for(labels).per_minute = points
        if sec.error_ratio:
            for labels, points in query_range(url, sec.error_ratio + sel, q_start, q_end, 60):
                row_for(labels).error_ratio = points
        if sec.quantile:
            for labels, points in query_range(url, sec.quantile + sel, q_start, q_end, 60):
                q = labels.pop("quantile", "")
                if q in QUANTILES:
                    row_for(labels).quantiles[q] = points
        sections[sec.kind] = sorted(rows.values(), key=lambda r: (r.service, r.operation))
    lag = {}
    for labels, points in query_range(url, LAG, q_start, q_end, 60):
        lag[f"{labels.get('group', '')}/{labels.get('topic', '')}"] = points
    return ts, sections, lag
