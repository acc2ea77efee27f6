"""A small client of the newsfeed HTTP API for the fault drivers (Python stdlib only).

Every call returns a Response and never raises for HTTP errors or network failures: a connection refused or a
timeout is a Response with status 0, because the drivers count outcomes instead of stopping at the first one.
"""
import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field


@dataclass
class Response:
    status: int                 # 0: no HTTP answer (refused, reset, timeout)
    body: str = ""
    headers: dict = field(default_factory=dict)
    error: str = ""             # why there was no HTTP answer
    seconds: float = 0.0

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def is_json_error(self, status=None):
        """The contract's error body {"error","message","status"} with a JSON content type."""
        body = self.json()
        return (self.headers.get("content-type", "").startswith("application/json")
                and isinstance(body, dict)
                and isinstance(body.get("error"), str) and isinstance(body.get("message"), str)
                and body.get("status") == self.status
                and (status is None or self.status == status))

    def describe(self):
        if self.status == 0:
            return f"no answer ({self.error})"
        return f"{self.status} {self.body[:200]}"


def request(method, url, body=None, timeout=10.0, headers=None):
    data = None
    headers = {"Accept": "application/json", **(headers or {})}
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    start = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text = resp.read().decode("utf-8", "replace")
            return Response(resp.status, text, {k.lower(): v for k, v in resp.headers.items()},
                            seconds=time.monotonic() - start)
    except urllib.error.HTTPError as e:
        text = e.read().decode("utf-8", "replace") if e.fp else ""
        return Response(e.code, text, {k.lower(): v for k, v in (e.headers or {}).items()},
                        seconds=time.monotonic() - start)
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        return Response(0, error=f"{type(e).__name__}: {reason}", seconds=time.monotonic() - start)


_local = threading.local()


def get(url, timeout=10.0):
    """A GET on a kept-alive connection of this thread (verification reads thousands of pages); a reused
    connection the server had closed is retried once on a fresh one, which is safe for a GET."""
    u = urllib.parse.urlsplit(url)
    path = u.path + ("?" + u.query if u.query else "")
    conns = getattr(_local, "conns", None)
    if conns is None:
        conns = _local.conns = {}
    start = time.monotonic()
    for attempt in (1, 2):
        conn = conns.get(u.netloc)
        reused = conn is not None
        if conn is None:
            conn = conns[u.netloc] = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        try:
            conn.request("GET", path, headers={"Accept": "application/json"})
            resp = conn.getresponse()
            text = resp.read().decode("utf-8", "replace")
            if resp.getheader("connection", "").lower() == "close":
                conn.close()
                del conns[u.netloc]
            return Response(resp.status, text, {k.lower(): v for k, v in resp.getheaders()},
                            seconds=time.monotonic() - start)
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            del conns[u.netloc]
            if attempt == 1 and reused and not isinstance(e, TimeoutError):
                continue
            return Response(0, error=f"{type(e).__name__}: {e}", seconds=time.monotonic() - start)


def post(url, body, timeout=10.0, headers=None):
    return request("POST", url, body, timeout=timeout, headers=headers)


def link(pid):
    return f"/participant/{pid}"


def id_of(link_or_id):
    return int(str(link_or_id).rsplit("/", 1)[-1])


class Urls:
    """Base URLs of the services: the first instance of each from the environment (ci/local/services.sh urls)."""

    def __init__(self, env=os.environ):
        self.social_graph = env["SOCIAL_GRAPH_URL"].rstrip("/")
        self.outbound = env["OUTBOUND_URL"].rstrip("/")
        self.inbound = env["INBOUND_URL"].rstrip("/")
        self.search = env["SEARCH_URL"].rstrip("/")


def feed(url, limit=100, timeout=10.0, max_pages=1000):
    """Every item of a paged feed (X-Next-Cursor); None when a page did not answer 200."""
    items, cursor = [], None
    for _ in range(max_pages):
        sep = "&" if "?" in url else "?"
        page_url = f"{url}{sep}limit={limit}"
        if cursor:
            page_url += "&cursor=" + urllib.parse.quote(cursor, safe="")
        r = get(page_url, timeout=timeout)
        if r.status != 200 or not isinstance(r.json(), list):
            return None
        items.extend(r.json())
        cursor = r.headers.get("x-next-cursor")
        if not cursor:
            return items
    return None


def retried(attempt, retry_seconds, once=False, final=lambda status: 200 <= status < 500):
    """Sends attempt() again, as a careful client does, until its answer is final (final(status)), for up to
    retry_seconds, waiting 1, 2, ... 5 s between tries; once: a client that gives up after the first. Returns
    (the last Response, the statuses of every try, when the first was sent)."""
    sent, statuses = time.time(), []
    while True:
        r = attempt()
        statuses.append(r.status)
        if final(r.status) or once or time.time() - sent + 1 > retry_seconds:
            return r, statuses, sent
        time.sleep(min(1.0 * len(statuses), 5.0))


def wait_for(predicate, timeout, interval=0.5):
    """Polls predicate() until it returns a truthy value or timeout seconds passed; (value, seconds)."""
    start = time.monotonic()
    while True:
        value = predicate()
        elapsed = time.monotonic() - start
        if value or elapsed >= timeout:
            return value, elapsed
        time.sleep(interval)
