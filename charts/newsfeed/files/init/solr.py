"""solr.py check|apply: the Solr step of the newsfeed chart's schema Jobs (python stdlib only).

  check  SolrCloud at SOLR_URL answers with at least one live node (one attempt; wait-for.sh repeats it)
  apply  upload CONFIGSET_DIR as configset CONFIGSET (overwrite), then create SOLR_COLLECTION from it, or reload it
         when it exists so an upgraded configset takes effect. Idempotent.
A standalone Solr (e.g. the local stack's) has no configset upload or collections: there `check` waits for core
SOLR_COLLECTION to be loaded and `apply` reloads it; its conf is laid down by whoever runs that Solr.
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


def cloud_mode():
    return call("/admin/info/system", {}, timeout=10).get("mode") == "solrcloud"


def core_loaded(core):
    status = call("/admin/cores", {"action": "STATUS", "core": core}, timeout=10).get("status", {})
    return bool(status.get(core, {}).get("instanceDir"))


def check():
    if not cloud_mode():
        core = os.environ["SOLR_COLLECTION"]
        if not core_loaded(core):
            sys.exit(f"standalone solr answers but has no core {core} (yet)")
        print(f"solr: standalone, core {core} loaded")
        return
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
    if not cloud_mode():
        call("/admin/cores", {"action": "RELOAD", "core": collection}, timeout=120)
        print(f"standalone solr: core {collection} reloaded (a configset can only be uploaded to SolrCloud)")
        return
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
