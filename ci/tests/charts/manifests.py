"""Offline checks and helpers for ci/tests/charts.sh, over rendered chart manifests (`helm template` output).

  security RENDER_A [RENDER_B]  every Pod spec locked down, credentials only from Secrets; with a second
                                render of the same values, Secret values equal in both are fixed defaults
  crd-schemas OUT_DIR CRD_FILE... JSON schemas for kubeconform from CRDs: OUT_DIR/<group>/<kind>_<version>.json
  strip-deps CHART_YAML         drop dependencies not served by file:// (no chart repository offline);
                                prints the dropped names
  k8s-schemas SRC OUT           kubernetes-validate's schemas made standalone for kubeconform: their $id and
                                absolute "/api/..." refs point at kubernetes.io, rewritten to sibling files
  crd-index CRD_FILE...         `group/version Kind crd-name` per served version of every CRD
  kinds RENDER...               `apiVersion Kind` of every object rendered (hooks included), once each
  hooks RENDER                  one `hook Kind name` line per Helm hook (test hooks included)
  rollout < `kubectl get deploy,rs,pod -o json`
                                every Deployment has a ReplicaSet and as many Pods as its replicas
  expect RELEASE < `helm get values --all -o json`
                                the umbrella's objects its values turn on: `resource name-regex min` lines
  redis-clients RELEASE RENDER  the services that cache in Redis (social-graph, inbound) read REDIS_URL from
                                Secret `<release>-redis-auth` key redis-url, which is rendered, and their
                                NetworkPolicy (when rendered) lets them reach Redis
  k6-scripts RENDER             every k6 CronJob runs a script its scripts volume mounts, every `./lib/x.js` the
                                scripts import (transitively) is mounted at lib/x.js, and its env names the
                                services (BASE_URL, or each service's URL: EDGE_URL for graphql.js)
  netpol RELEASE RENDER VALUES...
                                NetworkPolicies of a render of the chart with VALUES (its values.yaml first, then
                                the profile's files; Redis and Kafka of the render included): a default deny (every
                                pod, ingress and egress, DNS only), no ingress rule admitting everything (no `from`,
                                an empty peer, any namespace, a /0 ipBlock), and every store pod the release makes
                                (labelled as CloudNativePG, cass-operator, the Solr Operator and zookeeper-operator,
                                Bitnami label them) selected by a NetworkPolicy of its own and reachable on its client
                                port by exactly its clients (docs/architecture.md) and its schema Job, which have the
                                egress to it
  pod-templates RENDER WORKLOADS_OUT PODS_OUT
                                for a server-side dry run in a namespace enforcing a Pod Security level: the
                                workloads of RENDER renamed `psa-<name>` (no namespace), and each pod template as a Pod
  summary RENDER                one `Kind name` line per object
  images OUT RENDER CHART_DIR [VALUES...]
                                every image RENDER runs (pod specs, and the images of the operators' custom
                                resources), plus those of CHART_DIR's chart-repository subcharts (Bitnami), read
                                from CHART_DIR/values.yaml and the VALUES files merged as Helm does, since those
                                subcharts are not rendered offline (their image keys: subchart-images.yaml). Lists
                                them (and writes the list to OUT); fails on an image without an explicit tag (none,
                                or `latest`, unless pinned by digest), on a versioned docker.io/bitnami/ tag (removed
                                upstream), on an operator image left to the operator's default and on a subchart
                                image key that subchart version does not read
  redis-disabled VALUES "CMD..."  redis.master.disableCommands and redis.replica.disableCommands of VALUES are the
                                commands CMD... (the local stack's list) and include the dangerous ones
  redis-memory VALUES "MAXMEMORY POLICY" [PROFILE...]
                                redis.commonConfiguration of VALUES, and of each PROFILE merged over it where Redis
                                is on, makes a cache: no AOF, no RDB snapshots, a volatile-ttl policy and maxmemory at
                                most 80 % of redis.master.resources.limits.memory; VALUES' maxmemory and policy are
                                MAXMEMORY POLICY (the local stack's)
"""
import base64
import json
import os
import re
import sys

import yaml

SENSITIVE = re.compile(r"PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|CREDENTIAL|PRIVATE_?KEY", re.I)
# a password inside a URL, unless it is a `$(VAR)` reference to another (Secret-sourced) variable
URL_WITH_PASSWORD = re.compile(r"://[^/@\s:]*:(?!\$\([A-Za-z_][A-Za-z0-9_]*\)@)[^/@\s]+@")
WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod"}
SERVICES = ("social-graph", "outbound", "inbound", "search", "edge")
REDIS_CLIENTS = ("social-graph", "inbound")  # the services with a Redis cache (docs/contracts.md)


Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# a plain `=` is YAML 1.1's "value" tag (in the prometheus-operator CRDs' enums): Kubernetes reads a string
Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


def load(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.load_all(f, Loader=Loader) if isinstance(d, dict) and d.get("kind")]


def name_of(doc):
    return doc.get("metadata", {}).get("name", "?")


def pod_spec(doc):
    spec = doc.get("spec") or {}
    kind = doc["kind"]
    if kind == "Pod":
        return spec
    if kind == "CronJob":
        spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    return (spec.get("template") or {}).get("spec")


def rbac_subjects(docs):
    """ServiceAccounts the chart grants API access to: only those may mount a token."""
    subjects = set()
    for d in docs:
        if d["kind"] in ("RoleBinding", "ClusterRoleBinding"):
            for s in d.get("subjects") or []:
                if s.get("kind") == "ServiceAccount":
                    subjects.add(s.get("name"))
    return subjects


def container_problems(c, psc):
    csc = c.get("securityContext") or {}
    out = []
    non_root = csc.get("runAsNonRoot", psc.get("runAsNonRoot"))
    if non_root is not True:
        out.append("runAsNonRoot not true")
    if csc.get("runAsUser", psc.get("runAsUser")) == 0:
        out.append("runAsUser 0")
    if csc.get("readOnlyRootFilesystem") is not True:
        out.append("readOnlyRootFilesystem not true")
    if csc.get("allowPrivilegeEscalation") is not False:
        out.append("allowPrivilegeEscalation not false")
    if csc.get("privileged") is True:
        out.append("privileged")
    caps = csc.get("capabilities") or {}
    if "ALL" not in (caps.get("drop") or []):
        out.append("capabilities.drop lacks ALL")
    if caps.get("add"):
        out.append(f"capabilities.add {caps['add']}")
    seccomp = (csc.get("seccompProfile") or psc.get("seccompProfile") or {}).get("type")
    if seccomp != "RuntimeDefault":
        out.append(f"seccompProfile {seccomp or 'unset'} (want RuntimeDefault)")
    for e in c.get("env") or []:
        n, v = e.get("name", ""), e.get("value")
        if SENSITIVE.search(n):
            if v not in (None, ""):
                out.append(f"env {n} has a literal value")
            elif "valueFrom" in e and "secretKeyRef" not in e["valueFrom"]:
                out.append(f"env {n} not from a Secret ({list(e['valueFrom'])[0]})")
        if isinstance(v, str) and URL_WITH_PASSWORD.search(v):
            out.append(f"env {n} has a password in a URL")
    return out


def security(docs):
    problems = []
    sa_automount = {name_of(d): d.get("automountServiceAccountToken")
                    for d in docs if d["kind"] == "ServiceAccount"}
    granted = rbac_subjects(docs)
    pods = 0
    for d in docs:
        if d["kind"] not in WORKLOADS:
            continue
        spec = pod_spec(d)
        if not spec:
            continue
        pods += 1
        where = f"{d['kind']}/{name_of(d)}"
        psc = spec.get("securityContext") or {}
        for flag in ("hostNetwork", "hostPID", "hostIPC"):
            if spec.get(flag):
                problems.append(f"{where}: {flag}")
        sa = spec.get("serviceAccountName") or "default"
        mount = spec.get("automountServiceAccountToken")
        if mount is None:
            mount = sa_automount.get(sa)
        if mount is not False and sa not in granted:
            problems.append(f"{where}: service account token mounted (automountServiceAccountToken not false) "
                            f"but ServiceAccount {sa} has no RBAC binding in the chart")
        for c in (spec.get("initContainers") or []) + (spec.get("containers") or []):
            problems += [f"{where} container {c.get('name')}: {p}" for p in container_problems(c, psc)]
        for v in spec.get("volumes") or []:
            if "hostPath" in v:
                problems.append(f"{where}: hostPath volume {v.get('name')}")
    for d in docs:
        if d["kind"] == "ConfigMap":
            for k, v in (d.get("data") or {}).items():
                if SENSITIVE.search(k) and v:
                    problems.append(f"ConfigMap/{name_of(d)}: key {k} holds a credential (belongs in a Secret)")
    return pods, problems


def secret_values(docs):
    vals = {}
    for d in docs:
        if d["kind"] == "Secret":
            for field in ("data", "stringData"):
                for k, v in (d.get(field) or {}).items():
                    if v and SENSITIVE.search(k):
                        vals[(name_of(d), k)] = v
    return vals


def cmd_security(paths):
    docs = load(paths[0])
    pods, problems = security(docs)
    if len(paths) > 1:  # a value equal in two renders is not generated: a default password in the chart
        again = secret_values(load(paths[1]))
        for (secret, key), v in secret_values(docs).items():
            if again.get((secret, key)) == v:
                problems.append(f"Secret/{secret}: {key} is the same in every render (a default credential)")
    for p in problems:
        print(p)
    print(f"{pods} pod specs checked, {len(problems)} problems", file=sys.stderr)
    if pods == 0:
        print("no pod spec rendered")
        return 1
    return 1 if problems else 0


def to_json_schema(s, strict=True):
    """openAPIV3Schema -> JSON schema; objects without preserve-unknown-fields get additionalProperties
    false (the API server prunes or, with kubectl's strict field validation, rejects unknown fields)."""
    if isinstance(s, list):
        return [to_json_schema(x, strict) for x in s]
    if not isinstance(s, dict):
        return s
    out = {k: to_json_schema(v, strict) for k, v in s.items() if not k.startswith("x-kubernetes-")}
    out.pop("format", None)  # int32, byte, date-time...: the server checks these, kubeconform need not
    if s.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    if s.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    out.pop("nullable", None)
    if "properties" in out and s.get("x-kubernetes-embedded-resource"):
        for k in ("apiVersion", "kind"):
            out["properties"].setdefault(k, {"type": "string"})
        out["properties"].setdefault("metadata", {"type": "object"})
    if strict and "properties" in out and "additionalProperties" not in out \
            and not s.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    return out


def cmd_crd_schemas(out_dir, files):
    n = 0
    for f in files:
        for d in load(f):
            if d["kind"] != "CustomResourceDefinition":
                continue
            spec = d["spec"]
            for v in spec.get("versions") or []:
                schema = (v.get("schema") or {}).get("openAPIV3Schema")
                if not schema:
                    continue
                js = to_json_schema(schema)
                js.setdefault("properties", {})
                for k in ("apiVersion", "kind"):
                    js["properties"].setdefault(k, {"type": "string"})
                js["properties"].setdefault("metadata", {"type": "object"})
                d_out = os.path.join(out_dir, spec["group"])
                os.makedirs(d_out, exist_ok=True)
                with open(os.path.join(d_out, f"{spec['names']['kind'].lower()}_{v['name']}.json"), "w") as o:
                    json.dump(js, o)
                n += 1
    print(f"{n} CRD schemas", file=sys.stderr)
    return 0 if n else 1


def cmd_strip_deps(chart_yaml):
    with open(chart_yaml, encoding="utf-8") as f:
        chart = yaml.safe_load(f)
    keep, dropped = [], []
    for dep in chart.get("dependencies") or []:
        repo = str(dep.get("repository") or "")
        (keep if not repo or repo.startswith("file://") else dropped).append(dep)
    chart["dependencies"] = keep
    with open(chart_yaml, "w", encoding="utf-8") as f:
        yaml.safe_dump(chart, f, sort_keys=False)
    for dep in dropped:
        print(dep.get("alias") or dep["name"])
    return 0


def cmd_k8s_schemas(src, out):
    os.makedirs(out, exist_ok=True)
    n = 0
    for f in sorted(os.listdir(src)):
        if not f.endswith(".json"):
            continue
        with open(os.path.join(src, f), encoding="utf-8") as i:
            schema = json.load(i)
        schema.pop("$id", None)
        text = json.dumps(schema).replace('"/api/_definitions.json#', '"_definitions.json#')
        with open(os.path.join(out, f), "w", encoding="utf-8") as o:
            o.write(text)
        n += 1
    print(f"{n} Kubernetes schemas in {out}", file=sys.stderr)
    return 0 if n else 1


def cmd_crd_index(files):
    n = 0
    for f in files:
        for d in load(f):
            if d["kind"] == "CustomResourceDefinition":
                for v in d["spec"].get("versions") or []:
                    if v.get("served", True):
                        print(f"{d['spec']['group']}/{v['name']}", d["spec"]["names"]["kind"], name_of(d))
                        n += 1
    return 0 if n else 1


def cmd_kinds(paths):
    seen = set()
    for p in paths:
        for d in load(p):
            seen.add((str(d.get("apiVersion")), d["kind"]))
    for api_version, kind in sorted(seen):
        print(api_version, kind)
    return 0


def cmd_hooks(path):
    for d in load(path):
        hook = (d.get("metadata", {}).get("annotations") or {}).get("helm.sh/hook")
        if hook:
            print(hook.replace(" ", ""), d["kind"], name_of(d))
    return 0


def cmd_rollout():
    items = json.load(sys.stdin)["items"]
    owned = {}
    for i in items:
        for ref in i["metadata"].get("ownerReferences") or []:
            owned.setdefault(ref["uid"], []).append(i)
    deployments = [i for i in items if i["kind"] == "Deployment"]
    missing, pods = [], 0
    for d in deployments:
        want = d["spec"].get("replicas", 1)
        sets = [r for r in owned.get(d["metadata"]["uid"], []) if r["kind"] == "ReplicaSet"]
        have = [p for r in sets for p in owned.get(r["metadata"]["uid"], []) if p["kind"] == "Pod"]
        pods += len(have)
        if not sets:
            missing.append(f"Deployment/{name_of(d)}: no ReplicaSet")
        elif len(have) < want:
            why = [c.get("message", "") for r in sets for c in (r.get("status") or {}).get("conditions") or []]
            missing.append(f"Deployment/{name_of(d)}: {len(have)}/{want} Pods {'; '.join(why)}".rstrip())
    for m in missing:
        print(m)
    print(f"{len(deployments)} Deployments, {pods} Pods")
    return 1 if missing or not deployments else 0


def cmd_expect(release):
    v = json.load(sys.stdin)

    def on(*path):
        cur = v
        for k in path:
            cur = cur.get(k) if isinstance(cur, dict) else None
        return cur is True

    out = []
    for svc in SERVICES:
        if not on(svc, "enabled"):
            continue
        end = f"(^|-){svc}$"
        out += [("deployments", end, 1), ("services", end, 1)]
        if on(svc, "metrics", "serviceMonitor", "enabled"):
            out.append(("servicemonitors.monitoring.coreos.com", end, 1))
        if on(svc, "autoscaling", "hpa", "enabled"):
            out.append(("horizontalpodautoscalers.autoscaling", end, 1))
        if on(svc, "pdb", "create"):
            out.append(("poddisruptionbudgets.policy", end, 1))
    for key, resource in (("postgresql", "clusters.postgresql.cnpg.io"),
                          ("cassandra", "k8ssandraclusters.k8ssandra.io"),
                          ("solr", "solrclouds.solr.apache.org")):
        if on(key, "enabled"):
            out.append((resource, f"^{release}-", 1))
    if on("initJobs", "enabled"):
        out.append(("jobs.batch", ".", 1))
    if on("k6", "enabled"):
        for name, sc in ((v.get("k6") or {}).get("scenarios") or {}).items():
            # graphql.js drives edge: no CronJob without it
            needs_edge = isinstance(sc, dict) and (sc.get("script") or f"{name}.js") == "graphql.js"
            if isinstance(sc, dict) and sc.get("enabled", True) and (on("edge", "enabled") or not needs_edge):
                out.append(("cronjobs.batch", f"^{release}-k6-{name}$", 1))
        if on("k6", "operator", "enabled"):
            out.append(("testruns.k6.io", ".", 1))
    if on("monitoring", "prometheusRule", "enabled"):
        out.append(("prometheusrules.monitoring.coreos.com", ".", 1))
    if on("ingress", "enabled"):
        out.append(("ingresses.networking.k8s.io", ".", 1))
    if on("httpRoute", "enabled"):
        out.append(("httproutes.gateway.networking.k8s.io", ".", 1))
    if on("networkPolicy", "enabled"):
        out.append(("networkpolicies.networking.k8s.io", ".", 1))
    for e in v.get("externalEndpoints") or []:
        out += [("services", f"^{e['name']}$", 1), ("endpointslices.discovery.k8s.io", f"^{e['name']}$", 1)]
    for line in out:
        print(*line)
    return 0


def service_deployment(docs, service):
    for d in docs:
        labels = d.get("metadata", {}).get("labels") or {}
        if d["kind"] == "Deployment" and labels.get("app.kubernetes.io/name") == service:
            return d
    return None


def egress_reaches_redis(policy, release, port):
    """An egress rule of the NetworkPolicy allows TCP `port` to the in-cluster Redis pods (or, for an external
    Redis, to any peer or the configured externalStorePeers: a rule without `to`, or with a non-pod peer)."""
    for rule in (policy.get("spec") or {}).get("egress") or []:
        ports = rule.get("ports") or []
        if ports and not any(p.get("port") == port and p.get("protocol", "TCP") == "TCP" for p in ports):
            continue
        peers = rule.get("to")
        if not peers:
            return True
        for peer in peers:
            match = (peer.get("podSelector") or {}).get("matchLabels") or {}
            if "podSelector" not in peer or (match.get("app.kubernetes.io/name") == "redis"
                                             and match.get("app.kubernetes.io/instance") == release):
                return True
    return False


def cmd_redis_clients(release, path):
    docs = load(path)
    problems, checked = [], []
    secret_name = f"{release}-redis-auth"
    secret = next((d for d in docs if d["kind"] == "Secret" and name_of(d) == secret_name), None)
    url = (secret or {}).get("data", {}).get("redis-url")
    url = base64.b64decode(url).decode() if url else ""
    port = re.search(r":(\d+)(/\d*)?$", url)
    port = int(port.group(1)) if port else None
    # a host naming a Service without a selector (externalEndpoints): the policy sees its target port
    host = re.sub(r":\d+(/\d*)?$", "", url.split("@")[-1].split("://")[-1])
    for d in docs:
        if d["kind"] == "Service" and name_of(d) == host.split(".")[0] and not (d.get("spec") or {}).get("selector"):
            for sp in (d.get("spec") or {}).get("ports") or []:
                if sp.get("port") == port and isinstance(sp.get("targetPort", port), int):
                    port = sp.get("targetPort", port)
    policies = {name_of(d): d for d in docs if d["kind"] == "NetworkPolicy"}
    for service in REDIS_CLIENTS:
        deploy = service_deployment(docs, service)
        if deploy is None:
            continue  # disabled in this profile
        checked.append(service)
        where = f"Deployment/{name_of(deploy)}"
        env = {e.get("name"): e for c in (pod_spec(deploy) or {}).get("containers") or [] for e in c.get("env") or []}
        ref = ((env.get("REDIS_URL") or {}).get("valueFrom") or {}).get("secretKeyRef") or {}
        if (ref.get("name"), ref.get("key")) != (secret_name, "redis-url"):
            problems.append(f"{where}: REDIS_URL not from Secret {secret_name} key redis-url "
                            f"(got {env.get('REDIS_URL')})")
        if not url:
            problems.append(f"Secret/{secret_name} with key redis-url not rendered (read by {service})")
        if policies:
            name = f"{release}-netpol-{service}"
            if name not in policies:
                problems.append(f"NetworkPolicy/{name} not rendered (other NetworkPolicies are)")
            elif not port or not egress_reaches_redis(policies[name], release, port):
                problems.append(f"NetworkPolicy/{name}: no egress to Redis ({url.split('@')[-1] or 'no URL'})")
    for p in problems:
        print(p)
    print(f"checked {', '.join(checked) or 'no service'}, NetworkPolicies {'checked' if policies else 'not rendered'}: "
          f"{len(problems)} problems")
    # no service Deployment found at all: the labels this looks for changed, not a profile without services
    services = [s for s in SERVICES if service_deployment(docs, s)]
    return 1 if problems or not services else 0


# ---------------------------------------------------------------------------------------------------- images
BITNAMI_REMOVED = "versioned docker.io/bitnami/ tag: removed upstream (Bitnami moved versioned tags to " \
                  "docker.io/bitnamilegacy in 2025; use Bitnami Secure Images or a mirror)"
# the commands a Redis of this project must not run: Lua (CVE-2025-49844), server reconfiguration and flushes
REDIS_MUST_DISABLE = {"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "SCRIPT", "FUNCTION", "FCALL", "FCALL_RO",
                      "MODULE", "CONFIG", "DEBUG", "FLUSHDB", "FLUSHALL"}


def parse_ref(ref):
    """(registry, repository, tag, digest) of an image reference; registry "docker.io" when none is named."""
    ref = str(ref or "").strip()
    name, _, digest = ref.partition("@")
    tag = ""
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = name[: len(name) - len(last)] + last.split(":", 1)[0], last.split(":", 1)[1]
        if tag == "":
            tag = None  # "repo:" - an empty tag
    first, _, rest = name.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        registry, repository = first, rest
    else:
        registry, repository = "docker.io", name
    if registry in ("docker.io", "index.docker.io", "registry-1.docker.io"):
        registry = "docker.io"
        if repository and "/" not in repository:
            repository = "library/" + repository
    return registry, repository, tag, digest


def ref_problems(ref):
    registry, repository, tag, digest = parse_ref(ref)
    out = []
    if not repository:
        return ["no repository"]
    if not digest and not tag:
        out.append("no explicit tag (pin a version, or a digest)")
    elif not digest and tag == "latest":
        out.append("tag `latest` (pin a version, or a digest)")
    if registry == "docker.io" and repository.startswith("bitnami/") and tag and tag != "latest":
        out.append(BITNAMI_REMOVED)
    return out


def ref_notes(ref):
    registry, repository, _, _ = parse_ref(ref)
    if repository.startswith("bitnamilegacy/"):
        return "frozen: Bitnami Legacy gets no fixes"
    return ""


def image_of(img, default=""):
    """`registry/repository:tag` (or @digest) of a {registry, repository, tag, digest} map (Bitnami, Solr, ...)."""
    if not isinstance(img, dict):
        return default
    repository = str(img.get("repository") or "")
    if not repository:
        return default
    registry = str(img.get("registry") or "")
    ref = f"{registry}/{repository}" if registry else repository
    if img.get("digest"):
        return f"{ref}@{img['digest']}"
    tag = img.get("tag")
    return f"{ref}:{tag}" if tag not in (None, "") else ref


def rendered_images(docs):
    """(ref or None, where, problem-if-missing) for every image of the render, and info lines."""
    out, info = [], []
    for d in docs:
        kind, spec = d["kind"], d.get("spec") or {}
        where = f"{kind}/{name_of(d)}"
        if kind in WORKLOADS:
            pspec = pod_spec(d) or {}
            for key in ("initContainers", "containers", "ephemeralContainers"):
                for c in pspec.get(key) or []:
                    out.append((c.get("image"), f"{where} container {c.get('name')}", "no image"))
        elif kind == "Cluster" and str(d.get("apiVersion", "")).startswith("postgresql.cnpg.io/"):
            if spec.get("imageName") or not spec.get("imageCatalogRef"):
                out.append((spec.get("imageName"), f"{where} spec.imageName",
                            "not set: CloudNativePG would pick its default image"))
        elif kind == "K8ssandraCluster":
            cass = spec.get("cassandra") or {}
            out.append((cass.get("serverImage"), f"{where} spec.cassandra.serverImage",
                        f"not set: cass-operator would derive it from serverVersion {cass.get('serverVersion')}"))
            for dc in cass.get("datacenters") or []:
                if dc.get("serverImage"):
                    out.append((dc["serverImage"], f"{where} datacenter {(dc.get('metadata') or {}).get('name')}",
                                ""))
        elif kind == "SolrCloud":
            out.append((image_of(spec.get("solrImage")) or None, f"{where} spec.solrImage",
                        "not set: the Solr Operator would pick library/solr:8.11"))
            out.append((image_of(spec.get("busyBoxImage")) or None, f"{where} spec.busyBoxImage",
                        "not set: the Solr Operator would pick its busybox"))
            provided = (spec.get("zookeeperRef") or {}).get("provided")
            if isinstance(provided, dict):
                out.append((image_of(provided.get("image")) or None, f"{where} spec.zookeeperRef.provided.image",
                            "not set: the zookeeper-operator would pick its default"))
        elif kind == "TestRun" and str(d.get("apiVersion", "")).startswith("k6.io/"):
            for part in ("runner", "initializer"):
                out.append(((spec.get(part) or {}).get("image"), f"{where} spec.{part}.image",
                            "not set: k6-operator would pick grafana/k6:latest"))
            if (spec.get("starter") or {}).get("image"):
                out.append((spec["starter"]["image"], f"{where} spec.starter.image", ""))
            else:
                info.append(f"{where}: its starter Pod runs k6-operator's own default image "
                            f"(ghcr.io/grafana/k6-operator:latest-starter); the chart does not set spec.starter.image")
    return out, info


def deep_merge(base, over):
    """Helm's values merge: maps merge key by key, anything else replaces, null deletes the key."""
    if not isinstance(base, dict) or not isinstance(over, dict):
        return over
    out = dict(base)
    for k, v in over.items():
        if v is None:
            out.pop(k, None)
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def dig(tree, dotted):
    cur = tree
    for k in dotted.split("."):
        cur = cur.get(k) if isinstance(cur, dict) else None
    return cur


def image_maps(tree, path=()):
    """Dotted paths of every map named `image` (with image fields) in a values tree."""
    if not isinstance(tree, dict):
        return
    for k, v in tree.items():
        if isinstance(v, dict):
            if k == "image" and any(f in v for f in ("registry", "repository", "tag", "digest")):
                yield ".".join(path + (k,))
            else:
                yield from image_maps(v, path + (k,))


def subchart_images(chart_dir, values_files):
    """(ref or None, where, problem) for the images of the chart's repository (non file://) dependencies, from the
    values; plus ("", where, problem) lines for keys no such subchart reads and ("", note, "") info lines."""
    with open(os.path.join(chart_dir, "Chart.yaml"), encoding="utf-8") as f:
        chart = yaml.safe_load(f)
    deps = [d for d in chart.get("dependencies") or []
            if str(d.get("repository") or "") and not str(d.get("repository")).startswith("file://")]
    if not deps:
        return [], []
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "subchart-images.yaml"), encoding="utf-8") as f:
        known = yaml.safe_load(f) or {}
    values = {}
    for vf in [os.path.join(chart_dir, "values.yaml")] + list(values_files):
        with open(vf, encoding="utf-8") as f:
            values = deep_merge(values, yaml.load(f, Loader=Loader) or {})
    global_registry = str(dig(values, "global.imageRegistry") or "")
    images, info = [], []
    for dep in deps:
        key = dep.get("alias") or dep["name"]
        sub = values.get(key) if isinstance(values.get(key), dict) else {}
        label = f"Bitnami {dep['name']} {dep['version']}"
        condition = dep.get("condition")
        if condition and dig(values, condition) is False:
            info.append(f"{key}: disabled in these values ({condition}=false), none of its images runs")
            continue
        keys = (known.get(dep["name"]) or {}).get(str(dep["version"]))
        if not keys:
            images.append(("", f"values {key}.*", f"no image keys known for {label}: read that version's "
                                                   f"values.yaml and add them to ci/tests/charts/subchart-images.yaml"))
            continue
        for path in image_maps(sub):
            if path not in keys:
                images.append(("", f"values {key}.{path}", f"not an image key {label} reads (it reads: "
                                                           f"{', '.join(key + '.' + k for k in keys)})"))
        for path, default in keys.items():
            img = dig(sub, path)
            img = img if isinstance(img, dict) else {}
            d_registry, d_repository, d_tag, _ = parse_ref(default)
            registry = global_registry or str(img.get("registry") or d_registry)
            ref = image_of({"registry": registry, "repository": img.get("repository") or d_repository,
                            "tag": img.get("tag") if img.get("tag") not in (None, "") else d_tag,
                            "digest": img.get("digest")})
            where = f"values {key}.{path} ({label}, not rendered offline)"
            problem = ""
            if not img.get("tag") and not img.get("digest"):
                problem = f"no tag in the values: {label}'s default tag {d_tag} would be used"
            images.append((ref, where, problem))
    return images, info


def cmd_images(out_path, render, chart_dir, values_files):
    rendered, info = rendered_images(load(render))
    entries = [(ref, where, missing, "rendered") for ref, where, missing in rendered]
    sub, sub_info = subchart_images(chart_dir, values_files)
    info += sub_info
    entries += [(ref, where, problem, "values") for ref, where, problem in sub]
    problems, listed = [], []
    for ref, where, extra, source in entries:
        if source == "rendered":
            if not ref:
                if extra:
                    problems.append(f"{where}: {extra}")
                continue
            found = ref_problems(ref)
        else:
            if not ref:
                problems.append(f"{where}: {extra}")
                continue
            found = ref_problems(ref) + ([extra] if extra else [])
        problems += [f"{ref} ({where}): {p}" for p in found]
        listed.append((ref, where, ref_notes(ref)))
    width = max([len(r) for r, _, _ in listed] + [10])
    lines = [f"{ref:<{width}}  {where}" + (f"  [{note}]" if note else "") for ref, where, note in listed]
    lines += [f"# {i}" for i in info]
    with open(out_path, "w", encoding="utf-8") as o:
        for ref, where, note in listed:
            o.write(f"{ref}\t{where}\t{note}\n")
    for line in lines:
        print(line)
    for p in problems:
        print(f"FAIL: {p}")
    print(f"{len(listed)} images ({len(set(r for r, _, _ in listed))} distinct), {len(problems)} problems")
    return 1 if problems or not listed else 0


def cmd_redis_disabled(values_path, stack_list):
    with open(values_path, encoding="utf-8") as f:
        values = yaml.load(f, Loader=Loader) or {}
    stack = {c.upper() for c in stack_list.split()}
    problems = []
    for role in ("master", "replica"):
        chart = {str(c).upper() for c in dig(values, f"redis.{role}.disableCommands") or []}
        if chart != stack:
            problems.append(f"redis.{role}.disableCommands {sorted(chart)} != the local stack's {sorted(stack)} "
                            f"(only in the chart: {sorted(chart - stack)}, only in the stack: {sorted(stack - chart)})")
        if not REDIS_MUST_DISABLE <= chart:
            problems.append(f"redis.{role}.disableCommands lacks {sorted(REDIS_MUST_DISABLE - chart)}")
    for p in problems:
        print(p)
    print(f"chart and stack disable: {' '.join(sorted(stack))}; {len(problems)} problems")
    return 1 if problems else 0
REDIS_SIZE = re.compile(r"^(\d+)([kmg]?)(b?)$", re.I)
K8S_SIZE = re.compile(r"^(\d+)(Ki|Mi|Gi|k|M|G)?$")


def redis_bytes(size):
    """Redis' memory sizes: 1k = 1000, 1kb = 1024 (redis.conf's units)."""
    m = REDIS_SIZE.match(str(size))
    if not m:
        return None
    unit = {"": 1, "k": 1000, "m": 1000 ** 2, "g": 1000 ** 3}[m.group(2).lower()]
    if m.group(3) and m.group(2):
        unit = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}[m.group(2).lower()]
    return int(m.group(1)) * unit


def k8s_bytes(quantity):
    m = K8S_SIZE.match(str(quantity))
    if not m:
        return None
    return int(m.group(1)) * {None: 1, "k": 1000, "M": 1000 ** 2, "G": 1000 ** 3, "Ki": 1024, "Mi": 1024 ** 2,
                              "Gi": 1024 ** 3}[m.group(2)]


def redis_conf(text):
    """The last value of each directive of a redis.conf text."""
    conf = {}
    for line in str(text or "").splitlines():
        words = line.split(None, 1)
        if words and not words[0].startswith("#"):
            conf[words[0].lower()] = words[1].strip() if len(words) > 1 else ""
    return conf


def redis_memory_problems(where, values):
    if not dig(values, "redis.enabled"):
        return [], None
    conf = redis_conf(dig(values, "redis.commonConfiguration"))
    problems = []
    if conf.get("appendonly", "").lower() != "no":
        problems.append(f"{where}: appendonly is {conf.get('appendonly')!r}, not no")
    if conf.get("save") not in ('""', "''"):
        problems.append(f"{where}: save is {conf.get('save')!r}, not \"\" (no RDB snapshots)")
    if conf.get("maxmemory-policy") != "volatile-ttl":
        problems.append(f"{where}: maxmemory-policy is {conf.get('maxmemory-policy')!r}, not volatile-ttl")
    maxmemory = redis_bytes(conf.get("maxmemory"))
    limit = k8s_bytes(dig(values, "redis.master.resources.limits.memory"))
    if not maxmemory:
        problems.append(f"{where}: no maxmemory ({conf.get('maxmemory')!r})")
    elif not limit:
        problems.append(f"{where}: no memory limit for Redis (redis.master.resources.limits.memory)")
    elif maxmemory > 0.8 * limit:
        problems.append(f"{where}: maxmemory {conf['maxmemory']} is {maxmemory / limit:.0%} of the limit "
                        f"{dig(values, 'redis.master.resources.limits.memory')}, more than 80 %")
    else:
        print(f"{where}: maxmemory {conf['maxmemory']} = {maxmemory / limit:.0%} of "
              f"{dig(values, 'redis.master.resources.limits.memory')}, {conf.get('maxmemory-policy')}")
    return problems, conf


def cmd_redis_memory(values_path, stack, profiles):
    defaults = merged_values([values_path])
    problems, conf = redis_memory_problems("defaults", defaults)
    want = stack.split()
    if conf is None:
        problems.append("defaults: Redis is off")
    elif [conf.get("maxmemory"), conf.get("maxmemory-policy")] != want:
        problems.append(f"defaults: maxmemory {conf.get('maxmemory')} {conf.get('maxmemory-policy')} != the local "
                        f"stack's {stack}")
    for profile in profiles:
        problems += redis_memory_problems(profile, merged_values([values_path, profile]))[0]
    for p in problems:
        print(p)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


IMPORT = re.compile(r"""^\s*(?:import|export)\b[^'"]*?\bfrom\s+['"](\./[^'"]+)['"]""", re.M)


def cmd_k6_scripts(path):
    """The CronJobs' scripts and everything they import are in the mounted scripts ConfigMap, at the paths the
    relative imports resolve to; each run is told where the services are."""
    docs = load(path)
    maps = {name_of(d): d.get("data") or {} for d in docs if d["kind"] == "ConfigMap"}
    problems, checked = [], []
    for job in (d for d in docs if d["kind"] == "CronJob" and "newsfeed.io/k6-scenario" in
                (d.get("metadata", {}).get("labels") or {})):
        where = f"CronJob/{name_of(job)}"
        spec = pod_spec(job) or {}
        container = (spec.get("containers") or [{}])[0]
        mount = next((m for m in container.get("volumeMounts") or [] if m.get("name") == "scripts"), {})
        volume = next((v for v in spec.get("volumes") or [] if v.get("name") == "scripts"), {})
        data = maps.get((volume.get("configMap") or {}).get("name"), {})
        files = {i["path"]: data.get(i["key"]) for i in (volume.get("configMap") or {}).get("items") or []}
        script = (container.get("args") or [""])[-1]
        rel = os.path.relpath(script, mount.get("mountPath", "/scripts")) if script.startswith("/") else script
        checked.append(f"{name_of(job)} ({rel})")
        todo, seen = [rel], set()
        while todo:
            f = todo.pop()
            if f in seen:
                continue
            seen.add(f)
            if files.get(f) is None:
                problems.append(f"{where}: {f} is not mounted from its scripts ConfigMap (mounted: {sorted(files)})")
                continue
            for imp in IMPORT.findall(files[f]):
                todo.append(os.path.normpath(os.path.join(os.path.dirname(f), imp)))
        env = {e.get("name") for e in container.get("env") or []}
        wanted = ["EDGE_URL"] if rel == "graphql.js" else ["SOCIAL_GRAPH_URL", "OUTBOUND_URL", "INBOUND_URL",
                                                            "SEARCH_URL"]
        if "BASE_URL" not in env and not all(w in env for w in wanted):
            problems.append(f"{where}: neither BASE_URL nor {', '.join(wanted)} in its env ({sorted(env)})")
    for p in problems:
        print(p)
    print(f"checked {', '.join(checked) or 'no k6 CronJob'}: {len(problems)} problems")
    # scripts shipped but no CronJob found: the label this looks for changed, not a profile without k6
    shipped = any(n.endswith("-k6-scripts") for n in maps)
    return 1 if problems or (shipped and not checked) else 0


# ------------------------------------------------------------------------------------------- network policies
# Which pods may reach which store, independently of the chart's templates: the stores' pod labels as their
# operators and subcharts set them (CloudNativePG, cass-operator, Solr Operator + zookeeper-operator, Bitnami), the
# clients from docs/architecture.md, and a small NetworkPolicy evaluator (same namespace, numeric ports).
STORE_CLIENTS = {"postgresql": ("social-graph",), "cassandra": ("outbound", "inbound"),
                 "redis": ("social-graph", "inbound"), "kafka": ("outbound", "inbound", "search"),
                 "solr": ("search",), "zookeeper": ("store:solr",)}
INIT_JOB_STORES = ("postgresql", "cassandra", "kafka", "solr")
CASS_LABEL_RUN = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


def clean_label_value(value):
    """cass-operator's CleanLabelValue: spaces dropped, then the runs of label characters joined."""
    return "".join(m.group(0) for m in CASS_LABEL_RUN.finditer(str(value).replace(" ", "")))


def merged_values(values_files):
    values = {}
    for vf in values_files:
        with open(vf, encoding="utf-8") as f:
            values = deep_merge(values, yaml.load(f, Loader=Loader) or {})
    return values


def store_pods(docs, release, values):
    """(store, where, pod labels, client port) of every store pod the release makes: from the operators' custom
    resources in the render and, for the Bitnami subcharts (not rendered offline), from the values."""
    out = []
    for d in docs:
        kind, spec, labels = d["kind"], d.get("spec") or {}, d.get("metadata", {}).get("labels") or {}
        api = str(d.get("apiVersion", ""))
        if kind == "Cluster" and api.startswith("postgresql.cnpg.io/"):
            out.append(("postgresql", f"Cluster/{name_of(d)} instances",
                        {"cnpg.io/cluster": name_of(d), "cnpg.io/podRole": "instance",
                         "cnpg.io/instanceName": f"{name_of(d)}-1", "role": "primary"}, 5432))
        elif kind == "K8ssandraCluster":
            cass = spec.get("cassandra") or {}
            cluster = clean_label_value(cass.get("clusterName") or name_of(d))
            for dc in cass.get("datacenters") or []:
                dc_name = (dc.get("metadata") or {}).get("name", "")
                out.append(("cassandra", f"K8ssandraCluster/{name_of(d)} datacenter {dc_name}",
                            {"app.kubernetes.io/managed-by": "cass-operator", "app.kubernetes.io/name": "cassandra",
                             "app.kubernetes.io/instance": f"cassandra-{cluster}",
                             "app.kubernetes.io/created-by": "cass-operator",
                             "cassandra.datastax.com/cluster": cluster,
                             "cassandra.datastax.com/datacenter": clean_label_value(dc_name),
                             "cassandra.datastax.com/rack": "default"}, 9042))
        elif kind == "SolrCloud":
            shared = dict(labels, **{"solr-cloud": name_of(d)})
            port = int((spec.get("solrAddressability") or {}).get("podPort") or 8983)
            out.append(("solr", f"SolrCloud/{name_of(d)} Solr pods", dict(shared, technology="solr-cloud"), port))
            if isinstance((spec.get("zookeeperRef") or {}).get("provided"), dict):
                zk = f"{name_of(d)}-solrcloud-zookeeper"
                out.append(("zookeeper", f"SolrCloud/{name_of(d)} provided ZooKeeper",
                            dict(shared, technology="zookeeper", app=zk, kind="ZookeeperMember"), 2181))
    for store, component, port_path, port in (("redis", "master", "master.containerPorts.redis", 6379),
                                               ("kafka", "controller-eligible", "listeners.client.containerPort", 9092)):
        sub = values.get(store) if isinstance(values.get(store), dict) else {}
        if sub.get("enabled") is True:
            out.append((store, f"Bitnami {store} (values {store}.enabled)",
                        {"app.kubernetes.io/name": sub.get("nameOverride") or store,
                         "app.kubernetes.io/instance": release, "app.kubernetes.io/component": component,
                         "app.kubernetes.io/managed-by": "Helm"}, int(dig(sub, port_path) or port)))
    return out


def selector_matches(selector, labels):
    """A LabelSelector (matchLabels, matchExpressions) against labels; an empty selector matches everything."""
    selector = selector or {}
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != str(v):
            return False
    for e in selector.get("matchExpressions") or []:
        key, op, vals = e.get("key"), e.get("operator"), [str(x) for x in e.get("values") or []]
        if (op == "In" and labels.get(key) not in vals) or (op == "NotIn" and labels.get(key) in vals) \
                or (op == "Exists" and key not in labels) or (op == "DoesNotExist" and key in labels):
            return False
    return True


def peer_matches(peer, labels, namespace):
    """A NetworkPolicyPeer against a pod of the policy's own namespace (ipBlocks never match a pod here)."""
    if "ipBlock" in peer:
        return False
    if "namespaceSelector" in peer and not selector_matches(
            peer["namespaceSelector"], {"kubernetes.io/metadata.name": namespace}):
        return False
    return selector_matches(peer.get("podSelector"), labels)


def port_matches(ports, port):
    if not ports:
        return True
    for p in ports:
        if p.get("protocol", "TCP") != "TCP":
            continue
        lo = p.get("port")
        if lo is None:
            return True
        if isinstance(lo, int) and lo <= port <= int(p.get("endPort") or lo):
            return True
    return False


def policy_types(policy):
    spec = policy.get("spec") or {}
    return spec.get("policyTypes") or (["Ingress"] + (["Egress"] if "egress" in spec else []))


def allowed(policies, direction, subject, other, port, namespace):
    """Whether `direction` ("Ingress"/"Egress") traffic of the pod labelled `subject` with the pod `other` on `port`
    is allowed: pods no policy isolates in that direction allow everything."""
    key, peers_key = ("ingress", "from") if direction == "Ingress" else ("egress", "to")
    isolating = [p for p in policies if direction in policy_types(p)
                 and selector_matches((p.get("spec") or {}).get("podSelector"), subject)]
    if not isolating:
        return True
    for p in isolating:
        for rule in (p.get("spec") or {}).get(key) or []:
            if not port_matches(rule.get("ports"), port):
                continue
            peers = rule.get(peers_key)
            if not peers or any(peer_matches(peer, other, namespace) for peer in peers):
                return True
    return False


def broad_peer(peer):
    """Why a NetworkPolicyPeer admits far more than a client, or ""."""
    if not peer:
        return "an empty peer {} (every pod of every namespace)"
    pod, ns = peer.get("podSelector"), peer.get("namespaceSelector")
    if "ipBlock" in peer:
        cidr = str((peer["ipBlock"] or {}).get("cidr", ""))
        return f"ipBlock {cidr} (every address)" if cidr.endswith("/0") else ""
    if "namespaceSelector" in peer and not ns and not pod:
        return "namespaceSelector {} without a podSelector (every pod of every namespace)"
    if "namespaceSelector" not in peer and not pod:
        return "podSelector {} (every pod of the namespace)"
    return ""


def pod_template_meta(doc):
    """metadata of the pods a workload makes (a Pod's own)."""
    spec = doc.get("spec") or {}
    if doc["kind"] == "Pod":
        return doc.get("metadata") or {}
    if doc["kind"] == "CronJob":
        spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    return (spec.get("template") or {}).get("metadata") or {}


def cmd_netpol(release, render, values_files):
    """Every store pod the release makes is isolated by a NetworkPolicy and reachable on its client port by exactly
    its clients; a default deny covers the namespace; no ingress rule admits everything."""
    docs = load(render)
    values = merged_values(values_files)
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    namespace = next((d["metadata"].get("namespace") for d in policies if d.get("metadata", {}).get("namespace")),
                     "default")
    problems = []
    if values.get("networkPolicy", {}).get("enabled") is not True or not policies:
        print("no NetworkPolicy rendered (networkPolicy.enabled must be true in every profile)")
        return 1
    # 1. the default deny: every pod, both directions, no ingress, egress to DNS only
    deny = [p for p in policies if (p.get("spec") or {}).get("podSelector") in ({}, None)
            and {"Ingress", "Egress"} <= set(policy_types(p)) and not (p.get("spec") or {}).get("ingress")
            and all(r.get("ports") and all(x.get("port") == 53 for x in r["ports"])
                    for r in (p.get("spec") or {}).get("egress") or [])]
    if not deny:
        problems.append("no default-deny NetworkPolicy (podSelector {}, policyTypes Ingress and Egress, no ingress "
                        "rule, egress to DNS only)")
    # 2. no ingress rule admits everything
    for p in policies:
        for i, rule in enumerate((p.get("spec") or {}).get("ingress") or []):
            where = f"NetworkPolicy/{name_of(p)} ingress[{i}]"
            if not rule.get("from"):
                problems.append(f"{where}: no `from` (admits every source on {rule.get('ports') or 'every port'})")
                continue
            for peer in rule["from"]:
                why = broad_peer(peer)
                if why:
                    problems.append(f"{where}: from {why}")
    # 3. each store pod: isolated, its clients in, nobody else
    sources = []  # (who, pod labels, a pod of the chart's own workloads): services by name, the rest by component
    for d in docs:
        if d["kind"] not in WORKLOADS or not pod_spec(d):
            continue
        labels = {k: str(v) for k, v in (pod_template_meta(d).get("labels") or {}).items()}
        who = labels.get("app.kubernetes.io/name") if labels.get("app.kubernetes.io/name") in SERVICES \
            else labels.get("app.kubernetes.io/component", f"{d['kind']}/{name_of(d)}")
        if who not in [s[0] for s in sources]:
            sources.append((who, labels, True))
    stores = store_pods(docs, release, values)
    sources += [(f"store:{store}", labels, False) for store, _, labels, _ in stores]
    if not stores:
        print("# no in-cluster store in these values")
    rows = []
    for store, where, labels, port in stores:
        isolating = [name_of(p) for p in policies if "Ingress" in policy_types(p) and "Egress" in policy_types(p)
                     and selector_matches((p.get("spec") or {}).get("podSelector"), labels)]
        own = [n for n in isolating if n not in [name_of(x) for x in deny]]
        if not own:
            problems.append(f"{where}: no NetworkPolicy of its own selects its pods ({labels}); isolated only by "
                            f"{isolating or 'nothing'}")
        expected = set(STORE_CLIENTS[store])
        if store in INIT_JOB_STORES:
            expected.add(f"init-{store}")
        if store == "kafka" and ((values.get("monitoring") or {}).get("kafkaLagExporter") or {}).get("enabled"):
            expected.add("kafka-lag-exporter")   # reads every group's offsets (monitoring.kafkaLagExporter)
        admitted = []
        for who, src, is_workload in sources:
            if who == f"store:{store}":
                continue
            ok_in = allowed(policies, "Ingress", labels, src, port, namespace)
            if ok_in:
                admitted.append(who)
            if who in expected:
                if not ok_in:
                    problems.append(f"{where}: its client {who} is not admitted on {port}")
                elif is_workload and not allowed(policies, "Egress", src, labels, port, namespace):
                    problems.append(f"{where}: its client {who} has no egress to it on {port}")
            elif ok_in:
                problems.append(f"{where}: {who} is admitted on {port}, and is not a client of {store}")
        rows.append(f"{store:<10} {port:<5} {', '.join(sorted(admitted)) or '-':<55} ({', '.join(own) or '-'})")
    print(f"{'store':<10} {'port':<5} {'admitted (pods of this release)':<55} (its NetworkPolicies)")
    for r in rows:
        print(r)
    for p in problems:
        print(f"FAIL: {p}")
    print(f"{len(policies)} NetworkPolicies, {len(stores)} store pod selectors, default deny "
          f"{name_of(deny[0]) if deny else 'MISSING'}: {len(problems)} problems")
    return 1 if problems else 0


# ------------------------------------------------------------------------------------------------ pod security
def renamed(name, prefix, limit=52):
    out = f"{prefix}{name}"
    return out[:limit].rstrip("-.") if len(out) > limit else out


def cmd_pod_templates(render, workloads_out, pods_out):
    """For a server-side dry run in a namespace that enforces a Pod Security level: every workload of the render
    under a new name (Pods are admitted with enforcement, the others with warnings), and every pod template as a Pod
    of its own (enforced)."""
    workloads, pods = [], []
    for d in load(render):
        if d["kind"] not in WORKLOADS or not pod_spec(d):
            continue
        meta = d.get("metadata") or {}
        w = dict(d, metadata={"name": renamed(meta.get("name", "x"), "psa-"), "labels": meta.get("labels") or {}})
        workloads.append(w)
        if d["kind"] == "Pod":
            continue
        tmeta = pod_template_meta(d)
        spec = dict(pod_spec(d))
        if spec.get("restartPolicy") not in ("Always", "OnFailure", "Never"):
            spec["restartPolicy"] = "Always"
        pods.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": renamed(f"{d['kind'].lower()}-{meta.get('name', 'x')}", "psa-", 63),
                                  "labels": tmeta.get("labels") or {}, "annotations": tmeta.get("annotations") or {}},
                     "spec": spec})
    for path, items in ((workloads_out, workloads), (pods_out, pods)):
        with open(path, "w", encoding="utf-8") as o:
            yaml.safe_dump_all(items, o, sort_keys=False)
    print(f"{len(workloads)} workloads ({', '.join(sorted({w['kind'] for w in workloads}))}), {len(pods)} pod templates")
    return 0 if workloads else 1


def cmd_summary(path):
    for d in load(path):
        print(d["kind"], name_of(d))
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "security":
        return cmd_security(argv[1:3])
    if len(argv) >= 3 and argv[0] == "crd-schemas":
        return cmd_crd_schemas(argv[1], argv[2:])
    if len(argv) == 2 and argv[0] == "strip-deps":
        return cmd_strip_deps(argv[1])
    if len(argv) == 3 and argv[0] == "k8s-schemas":
        return cmd_k8s_schemas(argv[1], argv[2])
    if len(argv) >= 2 and argv[0] == "crd-index":
        return cmd_crd_index(argv[1:])
    if len(argv) >= 2 and argv[0] == "kinds":
        return cmd_kinds(argv[1:])
    if len(argv) == 2 and argv[0] == "hooks":
        return cmd_hooks(argv[1])
    if argv == ["rollout"]:
        return cmd_rollout()
    if len(argv) == 2 and argv[0] == "expect":
        return cmd_expect(argv[1])
    if len(argv) == 3 and argv[0] == "redis-clients":
        return cmd_redis_clients(argv[1], argv[2])
    if len(argv) == 2 and argv[0] == "k6-scripts":
        return cmd_k6_scripts(argv[1])
    if len(argv) >= 3 and argv[0] == "netpol":
        return cmd_netpol(argv[1], argv[2], argv[3:])
    if len(argv) == 4 and argv[0] == "pod-templates":
        return cmd_pod_templates(argv[1], argv[2], argv[3])
    if len(argv) == 2 and argv[0] == "summary":
        return cmd_summary(argv[1])
    if len(argv) >= 4 and argv[0] == "images":
        return cmd_images(argv[1], argv[2], argv[3], argv[4:])
    if len(argv) == 3 and argv[0] == "redis-disabled":
        return cmd_redis_disabled(argv[1], argv[2])
    if len(argv) >= 3 and argv[0] == "redis-memory":
        return cmd_redis_memory(argv[1], argv[2], argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
