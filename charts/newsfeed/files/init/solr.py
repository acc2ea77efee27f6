"""solr.py check|apply: the Solr step of the newsfeed chart's schema Jobs (python stdlib only).

  check  SolrCloud at SOLR_URL answers with at least one live node (one attempt; wait-for.sh repeats it)
  apply  upload CONFIGSET_DIR as configset CONFIGSET (overwrite), then create SOLR_COLLECTION from it, or reload it
         when it exists so an upgraded configset takes effect; with SEARCH_USERNAME, set search's user (password
         SEARCH_PASSWORD), a role of the same name and its permissions: /select and /update on SOLR_COLLECTION, ahead
         of every other permission. Idempotent.
With SOLR_ADMIN_USERNAME and SOLR_ADMIN_PASSWORD every request authenticates as that Solr admin (HTTP Basic).
A standalone Solr (e.g. the local stack's) has no configset upload or collections: there `check` waits for core
SOLR_COLLECTION to be loaded and `apply` reloads it; its conf is laid down by whoever runs that Solr. Its permissions
cannot name a core (a rule's "collection" matches no core there), so search's two match any core ("*").
"""
import base64
import io
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
import zipfile

SOLR = os.environ["SOLR_URL"].rstrip("/")
ADMIN = os.environ.get("SOLR_ADMIN_USERNAME", "")
# search's permissions, named so that a later run finds and updates them
PERMISSIONS = (("newsfeed-search-select", "/select"), ("newsfeed-search-update", "/update"))


def call(path, params, body=None, timeout=30, content_type="application/octet-stream"):
    query = urllib.parse.urlencode(dict(params, wt="json"))
    req = urllib.request.Request(f"{SOLR}{path}?{query}", data=body, method="GET" if body is None else "POST")
    if body is not None:
        req.add_header("Content-Type", content_type)
    if ADMIN:
        login = f"{ADMIN}:{os.environ['SOLR_ADMIN_PASSWORD']}".encode("utf-8")
        req.add_header("Authorization", "Basic " + base64.b64encode(login).decode("ascii"))
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


def security(path, command):
    """One command of Solr's security API (BasicAuthPlugin, RuleBasedAuthorizationPlugin); never echoes it."""
    return call(path, {}, body=json.dumps(command).encode("utf-8"), content_type="application/json")


def search_user(collection, cloud):
    """search's user, a role of its name allowed /select and /update on the collection (and nothing else: every
    other request of it falls through to the operator's rules, which give its role nothing), first in the list."""
    user = os.environ["SEARCH_USERNAME"]
    security("/admin/authentication", {"set-user": {user: os.environ["SEARCH_PASSWORD"]}})
    security("/admin/authorization", {"set-user-role": {user: [user]}})
    permissions = call("/admin/authorization", {}).get("authorization", {}).get("permissions", [])
    existing = {p.get("name"): p.get("index") for p in permissions}
    for name, path in PERMISSIONS:
        permission = {"name": name, "collection": collection if cloud else "*", "path": path, "role": [user, "admin"]}
        if name in existing:
            security("/admin/authorization", {"update-permission": dict(permission, index=existing[name])})
        else:
            # the first matching permission decides: ahead of the operator's "read", "update" and "all"
            security("/admin/authorization", {"set-permission": dict(permission, before=1) if permissions
                                              else permission})
    print(f"solr user {user}: /select and /update on {collection} only", flush=True)


def apply():
    configset, collection = os.environ["CONFIGSET"], os.environ["SOLR_COLLECTION"]
    cloud = cloud_mode()
    if os.environ.get("SEARCH_USERNAME"):
        search_user(collection, cloud)
    if not cloud:
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
