"""The store credentials of a render of the umbrella chart (values `storeAuth`, docs/kubernetes.md "Store credentials").

  credentials.py RELEASE RENDER VALUES...   (VALUES: the chart's values.yaml, then the profile's files)

In every profile no service (nor the Kafka lag exporter) reads a store admin's Secret (Cassandra's superuser, the
Kafka admin's and brokers', the Solr Operator's bootstrap and operator users, CloudNativePG's superuser, whatever the
schema Jobs log in with). For each store whose `storeAuth` part is on, each of its clients (Kafka: outbound, inbound,
search, the lag exporter; Cassandra: outbound, inbound; Solr: search) reads username and password from a Secret of
its own, shared with no other client: one the release renders (basic-auth, both keys) or one
`storeAuth.<store>.existingSecrets` names; the Kafka clients speak SASL (their effective KAFKA_SECURITY_PROTOCOL and
KAFKA_SASL_MECHANISM, `env` over `envFrom`); the store's schema Job gives that same Secret's user its rights; a
SolrCloud of the release has Basic authentication.
Prints one line per service and store, then `FAIL: ` lines; exits 1 on any problem.
"""
import sys

from manifests import SERVICES, load, merged_values, name_of, pod_spec

# the lag exporter (monitoring.kafkaLagExporter) is a Kafka client like the services, with a user of its own
CLIENTS = {"kafka": ("outbound", "inbound", "search", "kafka-lag-exporter"), "cassandra": ("outbound", "inbound"),
           "solr": ("search",)}
VARS = {"kafka": ("KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD"),
        "cassandra": ("CASSANDRA_USERNAME", "CASSANDRA_PASSWORD"), "solr": ("SOLR_USERNAME", "SOLR_PASSWORD")}
# the variables of a store's schema Job that name a service's user, and its admin's password
JOB_VARS = {"kafka": ("{S}_USERNAME", "{S}_PASSWORD", "KAFKA_SASL_PASSWORD"),
            "cassandra": ("{S}_ROLE", "{S}_PASSWORD", "CASSANDRA_PASSWORD"),
            "solr": ("{S}_USERNAME", "{S}_PASSWORD", "SOLR_ADMIN_PASSWORD")}


def rendered_name(value, release):
    return str(value or "").replace("{{ .Release.Name }}", release)


def admin_secrets(release, values):
    """The store admins' Secrets by their names in the operators, the Bitnami chart and the values."""
    names = {f"{release}-cassandra-superuser", f"{release}-postgresql-superuser", f"{release}-kafka-user-passwords",
             f"{release}-solr-solrcloud-security-bootstrap", f"{release}-solr-solrcloud-basic-auth",
             rendered_name(((values.get("kafka") or {}).get("sasl") or {}).get("existingSecret"), release)
             or f"{release}-kafka-auth"}
    for store in ("cassandra", "solr"):
        admin = rendered_name(((values.get("storeAuth") or {}).get(store) or {}).get("adminSecret"), release)
        if admin:
            names.add(admin)
    return names


def container_env(doc, config_maps):
    """name -> ("value", v) | ("secret", (name, key)) | ("other", ...) of a workload's first container: envFrom
    ConfigMaps and Secrets first, its `env` over them, as the kubelet does."""
    container = ((pod_spec(doc) or {}).get("containers") or [{}])[0]
    env = {}
    for source in container.get("envFrom") or []:
        if "configMapRef" in source:
            for k, v in (config_maps.get(source["configMapRef"].get("name")) or {}).items():
                env[k] = ("value", str(v))
        elif "secretRef" in source:
            name = source["secretRef"].get("name")
            env[f"<all of Secret {name}>"] = ("secret", (name, "*"))
    for e in container.get("env") or []:
        ref = (e.get("valueFrom") or {}).get("secretKeyRef")
        if ref:
            env[e["name"]] = ("secret", (ref.get("name"), ref.get("key")))
        elif "valueFrom" in e:
            env[e["name"]] = ("other", e["valueFrom"])
        else:
            env[e["name"]] = ("value", str(e.get("value", "")))
    return env


def on(values, store):
    auth = values.get("storeAuth") or {}
    return auth.get("enabled") is True and (auth.get(store) or {}).get("enabled") is True


def main(release, render, values_files):
    docs = load(render)
    values = merged_values(values_files)
    config_maps = {name_of(d): d.get("data") or {} for d in docs if d["kind"] == "ConfigMap"}
    secrets = {name_of(d): d for d in docs if d["kind"] == "Secret"}
    services = {}
    for d in docs:
        label = (d.get("metadata", {}).get("labels") or {}).get("app.kubernetes.io/name")
        component = (d.get("metadata", {}).get("labels") or {}).get("app.kubernetes.io/component")
        if d["kind"] == "Deployment" and (label in SERVICES or component == "kafka-lag-exporter"):
            services[label if label in SERVICES else component] = (f"Deployment/{name_of(d)}",
                                                                   container_env(d, config_maps))
    jobs = {}
    for d in docs:
        component = (d.get("metadata", {}).get("labels") or {}).get("app.kubernetes.io/component", "")
        if d["kind"] == "Job" and component.startswith("init-"):
            jobs[component[len("init-"):]] = (f"Job/{name_of(d)}", container_env(d, config_maps))
    problems, rows = [], []
    if not services:
        print("no service Deployment rendered (the labels this looks for changed?)")
        return 1

    admins = admin_secrets(release, values)
    for store, (where, env) in jobs.items():  # what a schema Job logs in with as the store's admin is an admin's too
        if store in JOB_VARS and on(values, store):
            kind, ref = env.get(JOB_VARS[store][2], (None, None))
            if kind == "secret":
                admins.add(ref[0])
    for service, (where, env) in services.items():
        for var, (kind, ref) in env.items():
            if kind == "secret" and ref[0] in admins:
                problems.append(f"{where}: {var} reads Secret {ref[0]}, a store admin's credentials")

    for store, clients in CLIENTS.items():
        if not on(values, store):
            rows.append(f"{store:<10} storeAuth off")
            continue
        existing = ((values["storeAuth"].get(store) or {}).get("existingSecrets") or {})
        owners = {}
        for service in clients:
            if service not in services:
                continue
            where, env = services[service]
            got = [env.get(var, (None, None)) for var in VARS[store]]
            names = {ref[0] for kind, ref in got if kind == "secret"}
            keys = [ref[1] if kind == "secret" else None for kind, ref in got]
            if len(names) != 1 or keys != ["username", "password"]:
                problems.append(f"{where}: {' and '.join(VARS[store])} are not keys username and password of one "
                                f"Secret (got {got})")
                continue
            secret = names.pop()
            if secret in owners:
                problems.append(f"{where}: its {store} user is {owners[secret]}'s (Secret {secret}): each service "
                                f"needs its own")
            owners[secret] = service
            user = "?"
            if secret in secrets:
                data = secrets[secret].get("data") or secrets[secret].get("stringData") or {}
                basic = secrets[secret].get("type") == "kubernetes.io/basic-auth"
                if not basic or not {"username", "password"} <= set(data):
                    problems.append(f"Secret/{secret} ({service}'s {store} user): not basic-auth with username and "
                                    f"password")
                user = "generated"
            elif rendered_name(existing.get(service), release) == secret:
                user = "existing"
            else:
                problems.append(f"{where}: reads Secret {secret}, which the release does not render and "
                                f"storeAuth.{store}.existingSecrets.{service} does not name")
            if store == "kafka":
                protocol = env.get("KAFKA_SECURITY_PROTOCOL", ("value", "PLAINTEXT"))
                mechanism = env.get("KAFKA_SASL_MECHANISM", ("value", ""))
                if protocol[1] not in ("SASL_PLAINTEXT", "SASL_SSL") or not str(mechanism[1]).startswith("SCRAM-"):
                    problems.append(f"{where}: KAFKA_SECURITY_PROTOCOL {protocol[1]}, KAFKA_SASL_MECHANISM "
                                    f"{mechanism[1] or 'unset'}: not SASL/SCRAM")
            job = jobs.get(store)
            if job is None:
                problems.append(f"no schema Job of {store} renders: nobody gives {service}'s user its rights")
            else:
                job_where, job_env = job
                for var, key in zip(JOB_VARS[store][:2], ("username", "password")):
                    var = var.format(S=service.upper().replace("-", "_"))
                    if job_env.get(var) != ("secret", (secret, key)):
                        problems.append(f"{job_where}: {var} is not key {key} of Secret {secret}, the one {service} "
                                        f"reads (got {job_env.get(var)})")
            rows.append(f"{store:<10} {service:<9} {secret} ({user})")
        if store == "solr":
            for d in docs:
                if d["kind"] == "SolrCloud":
                    security = (d.get("spec") or {}).get("solrSecurity") or {}
                    if security.get("authenticationType") != "Basic":
                        problems.append(f"SolrCloud/{name_of(d)}: no Basic authentication (spec.solrSecurity)")
    for r in rows:
        print(r)
    for p in problems:
        print(f"FAIL: {p}")
    print(f"{len(services)} clients, admin Secrets {', '.join(sorted(admins))}: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
