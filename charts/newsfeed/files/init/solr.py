"""solr.py check|apply: the Solr step of the newsfeed chart's schema Jobs (python stdlib only).

  check  SolrCloud at SOLR_URL answers with at least one live node (one attempt; wait-for.sh repeats it)
  apply  upload CONFIGSET_DIR as configset CONFIGSET (overwrite), then create SOLR_COLLECTION from it, or reload it
         when it exists so an upgraded configset takes effect. Idempotent.
"""
import io
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
import zipfile

SOLR = os.environ["SOLR_URL"].rstrip("/")


def call(path, params, body=None, timeout=30):
    query = urllib.parse.urlencode(dict(params, wt="json"))
    req = urllib.request.Request(f"{SOLR}{path}?{query}", data=body, method="GET" if body is None else "POST")
    if body is not None:
        req.add_header("Content-Type", "application/octet-stream")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.load(resp)
    except urllib.error.HTTPError as err:
        detail = err.read().decode("utf-8", "replace")[:2000]
        sys.exit(f"solr {path} {params.get('action')}: HTTP {err.code}: {detail}")


def check():
    live = call("/admin/collections", {"action": "CLUSTERSTATUS"}, timeout=10).get("cluster", {}).get("live_nodes", [])
    if not live:
        sys.exit("solr answers but has no live nodes yet")
    print(f"solr: {len(live)} live node(s)")


def configset_zip(directory):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(os.listdir(directory)):
            path = os.path.join(directory, name)
            if not name.startswith(".") and os.path.isfile(path):  # skip the ConfigMap mount's ..data links
                zf.write(path, arcname=name)
    return buf.getvalue()


def apply():
    configset, collection = os.environ["CONFIGSET"], os.environ["SOLR_COLLECTION"]
    call("/admin/configs", {"action": "UPLOAD", "name": configset, "overwrite": "true"},
         body=configset_zip(os.environ["CONFIGSET_DIR"]))
    print(f"configset {configset} uploaded", flush=True)
    if collection in call("/admin/collections", {"action": "LIST"}).get("collections", []):
        call("/admin/collections", {"action": "RELOAD", "name": collection}, timeout=120)
        print(f"collection {collection} reloaded")
    else:
        call("/admin/collections", {
            "action": "CREATE", "name": collection, "collection.configName": configset,
            "numShards": os.environ.get("NUM_SHARDS", "1"),
            "replicationFactor": os.environ.get("REPLICATION_FACTOR", "1"),
            "waitForFinalState": "true"}, timeout=300)
        print(f"collection {collection} created")


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("check", "apply"):
        sys.exit("usage: solr.py check|apply")
    {"check": check, "apply": apply}[sys.argv[1]]()
