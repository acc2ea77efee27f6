{{/*
Helpers of the newsfeed umbrella chart, named `newsfeed.<component>.<thing>`.
Objects of this chart are named `<release>-<what>` (e.g. `<release>-k6-social`), so commands in the docs work for
any release name; the services (subcharts) are `<release>-<service>` (see newsfeed.service.fullname).
*/}}

{{/* The five services, in dependency order (edge is a client of the other four). */}}
{{- define "newsfeed.services" -}}
social-graph outbound inbound search edge
{{- end -}}

{{- define "newsfeed.fullname" -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "newsfeed.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels of one component of this chart: (dict "component" "k6" "context" $). */}}
{{- define "newsfeed.selectorLabels" -}}
app.kubernetes.io/name: newsfeed
app.kubernetes.io/instance: {{ .context.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Labels of every object of this chart: (dict "component" "k6" "context" $); commonLabels never replace the
     chart's own, which selectors and NetworkPolicies match on. */}}
{{- define "newsfeed.labels" -}}
{{- $own := dict "app.kubernetes.io/part-of" "newsfeed" "app.kubernetes.io/version" (toString .context.Chart.AppVersion)
  "app.kubernetes.io/managed-by" .context.Release.Service "helm.sh/chart" (include "newsfeed.chart" .context) -}}
{{- $own = merge $own (include "newsfeed.selectorLabels" . | fromYaml) -}}
{{- toYaml (merge $own (deepCopy (default dict .context.Values.commonLabels))) -}}
{{- end -}}

{{/* metadata.annotations content from commonAnnotations merged with (dict "annotations" {...} "context" $). */}}
{{- define "newsfeed.annotations" -}}
{{- $all := merge (deepCopy (default dict .annotations)) (default dict .context.Values.commonAnnotations) -}}
{{- with $all }}{{ toYaml . }}{{ end -}}
{{- end -}}

{{/* Image reference from (dict "image" {registry,repository,tag,digest} "context" $); no tag and no digest give
     the bare repository (which ci/tests/charts.sh refuses), never "repository:". */}}
{{- define "newsfeed.image" -}}
{{- $registry := default .image.registry .context.Values.global.imageRegistry -}}
{{- $ref := ternary (printf "%s/%s" $registry .image.repository) .image.repository (ne (toString $registry) "") -}}
{{- if .image.digest -}}
{{- printf "%s@%s" $ref .image.digest -}}
{{- else if ne (toString (default "" .image.tag)) "" -}}
{{- printf "%s:%s" $ref (toString .image.tag) -}}
{{- else -}}
{{- $ref -}}
{{- end -}}
{{- end -}}

{{/* The URL the gateway test reaches the gateway by: tests.gatewayUrl, else the Ingress' hostname (https with its
     tlsSecret), else the HTTPRoute's first hostname; empty when there is none. */}}
{{- define "newsfeed.tests.gatewayUrl" -}}
{{- if .Values.tests.gatewayUrl -}}
{{- .Values.tests.gatewayUrl -}}
{{- else if and .Values.ingress.enabled .Values.ingress.hostname -}}
{{- printf "%s://%s" (ternary "https" "http" (ne (toString .Values.ingress.tlsSecret) "")) .Values.ingress.hostname -}}
{{- else if and .Values.httpRoute.enabled .Values.httpRoute.hostnames -}}
{{- printf "http://%s" (first .Values.httpRoute.hostnames) -}}
{{- end -}}
{{- end -}}

{{/* "true" when k6 scenario (dict "scenario" NAME "context" $) gets a CronJob: enabled, and graphql.js (which
     drives edge's GraphQL API) only with edge installed. */}}
{{- define "newsfeed.k6.hasCronJob" -}}
{{- $scenario := index .context.Values.k6.scenarios .scenario -}}
{{- $script := default (printf "%s.js" .scenario) $scenario.script -}}
{{- $edgeMissing := and (eq $script "graphql.js") (not (include "newsfeed.service.enabled" (dict "service" "edge" "context" .context))) -}}
{{- if and $scenario.enabled (not $edgeMissing) }}true{{ end -}}
{{- end -}}

{{- define "newsfeed.imagePullSecrets" -}}
{{- with .Values.global.imagePullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ if kindIs "map" . }}{{ .name }}{{ else }}{{ . }}{{ end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Pod securityContext shared by this chart's pods, for (dict "uid" N). */}}
{{- define "newsfeed.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .uid }}
runAsGroup: {{ .uid }}
fsGroup: {{ .uid }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Container securityContext shared by this chart's containers. */}}
{{- define "newsfeed.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* ------------------------------------------------------------------------------------------------ services */}}

{{/* Values of one service subchart: (dict "service" "inbound" "context" $). */}}
{{- define "newsfeed.service.values" -}}
{{- toYaml (index .context.Values .service) -}}
{{- end -}}

{{/* Whether a service is enabled: (dict "service" "inbound" "context" $) -> "true" or "". */}}
{{- define "newsfeed.service.enabled" -}}
{{- $values := index .context.Values .service -}}
{{- if and $values $values.enabled }}true{{ end -}}
{{- end -}}

{{/* Name of a service's objects, the subchart's fullname rule: (dict "service" "inbound" "context" $). */}}
{{- define "newsfeed.service.fullname" -}}
{{- $values := default dict (index .context.Values .service) -}}
{{- if $values.fullnameOverride -}}
{{- $values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .service $values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- if contains $name .context.Release.Name -}}
{{- .context.Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .context.Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Pod selector labels of a service (the subchart's selector labels): (dict "service" "inbound" "context" $). */}}
{{- define "newsfeed.service.selectorLabels" -}}
{{- $values := default dict (index .context.Values .service) -}}
app.kubernetes.io/name: {{ default .service $values.nameOverride | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .context.Release.Name }}
{{- end -}}

{{/* In-cluster base URL of a service: (dict "service" "inbound" "context" $). */}}
{{- define "newsfeed.service.url" -}}
{{- $values := default dict (index .context.Values .service) -}}
{{- $port := 8080 -}}
{{- if and $values.service $values.service.port }}{{ $port = $values.service.port }}{{ end -}}
{{- printf "http://%s:%v" (include "newsfeed.service.fullname" .) $port -}}
{{- end -}}

{{/* HTTP port of a service's Service. */}}
{{- define "newsfeed.service.port" -}}
{{- $values := default dict (index .context.Values .service) -}}
{{- if and $values.service $values.service.port }}{{ $values.service.port }}{{ else }}8080{{ end -}}
{{- end -}}

{{/* Container port of a service's pods (what NetworkPolicies must allow). */}}
{{- define "newsfeed.service.containerPort" -}}
{{- $values := default dict (index .context.Values .service) -}}
{{- if and $values.containerPorts $values.containerPorts.http }}{{ $values.containerPorts.http }}{{ else }}8080{{ end -}}
{{- end -}}

{{/*
A secretKeyRef taken from a service's secretEnv entry, rendered in this chart's context, or "" when the service
has no such entry: (dict "service" "outbound" "var" "CASSANDRA_PASSWORD" "context" $).
*/}}
{{- define "newsfeed.service.secretKeyRef" -}}
{{- $values := default dict (index .context.Values .service) -}}
{{- $ref := index (default dict $values.secretEnv) .var -}}
{{- if $ref -}}
secretKeyRef:
  name: {{ tpl $ref.name .context }}
  key: {{ tpl $ref.key .context }}
  {{- if $ref.optional }}
  optional: true
  {{- end }}
{{- end -}}
{{- end -}}

{{/* ------------------------------------------------------------------------------------------------ postgresql */}}

{{- define "newsfeed.postgresql.clusterName" -}}
{{- printf "%s-postgresql" (include "newsfeed.fullname" .) -}}
{{- end -}}

{{- define "newsfeed.postgresql.host" -}}
{{- if .Values.postgresql.enabled -}}
{{- printf "%s-rw" (include "newsfeed.postgresql.clusterName" .) -}}
{{- else -}}
{{- .Values.externalPostgresql.host -}}
{{- end -}}
{{- end -}}

{{- define "newsfeed.postgresql.port" -}}
{{- ternary 5432 .Values.externalPostgresql.port .Values.postgresql.enabled -}}
{{- end -}}

{{- define "newsfeed.postgresql.database" -}}
{{- ternary .Values.postgresql.database .Values.externalPostgresql.database .Values.postgresql.enabled -}}
{{- end -}}

{{/* ------------------------------------------------------------------------------------------------ cassandra */}}

{{- define "newsfeed.cassandra.clusterName" -}}
{{- printf "%s-cassandra" (include "newsfeed.fullname" .) -}}
{{- end -}}

{{/* The K8ssandra datacenters list (may be empty when misconfigured; validateValues reports it). */}}
{{- define "newsfeed.cassandra.datacenters" -}}
{{- $spec := default dict .Values.cassandra.cluster -}}
{{- $cassandra := default dict $spec.cassandra -}}
{{- toYaml (dict "list" (default list $cassandra.datacenters)) -}}
{{- end -}}

{{/* Cassandra name of the first datacenter (the services' local DC). */}}
{{- define "newsfeed.cassandra.localDatacenter" -}}
{{- if .Values.cassandra.enabled -}}
{{- $dcs := (include "newsfeed.cassandra.datacenters" . | fromYaml).list -}}
{{- with (first $dcs) -}}
{{- default .metadata.name .datacenterName -}}
{{- end -}}
{{- else -}}
{{- .Values.externalCassandra.localDatacenter -}}
{{- end -}}
{{- end -}}

{{/* A name made fit for Kubernetes as cass-operator's CleanupForKubernetes makes it: kept when it is a DNS-1035
     label, else lowercased, "_" turned into "-" and only the runs of label characters kept. */}}
{{- define "newsfeed.cassandra.k8sName" -}}
{{- $name := toString . -}}
{{- if and (le (len $name) 63) (regexMatch "^[a-z]([-a-z0-9]*[a-z0-9])?$" $name) -}}
{{- $name -}}
{{- else -}}
{{- regexFindAll "[a-z]([-a-z0-9]*[a-z0-9])?" ($name | lower | replace "_" "-") -1 | join "" -}}
{{- end -}}
{{- end -}}

{{/* The Cassandra cluster's name as k8ssandra-operator's SanitizedName gives it: `cassandra.cluster.cassandra.clusterName`,
     else the K8ssandraCluster's own name, made fit for Kubernetes; cass-operator names its Services after it. */}}
{{- define "newsfeed.cassandra.sanitizedName" -}}
{{- $cass := default dict (default dict .Values.cassandra.cluster).cassandra -}}
{{- include "newsfeed.cassandra.k8sName" (default (include "newsfeed.cassandra.clusterName" .) $cass.clusterName) -}}
{{- end -}}

{{/* The superuser's Secret: in the cluster the one k8ssandra-operator uses (`superuserSecretRef`, else
     `<sanitized cluster name>-superuser`), for an external Cassandra `<release>-cassandra-superuser`. */}}
{{- define "newsfeed.cassandra.superuserSecret" -}}
{{- $cass := default dict (default dict .Values.cassandra.cluster).cassandra -}}
{{- if and .Values.cassandra.enabled (default dict $cass.superuserSecretRef).name -}}
{{- $cass.superuserSecretRef.name -}}
{{- else if .Values.cassandra.enabled -}}
{{- printf "%s-superuser" (include "newsfeed.cassandra.sanitizedName" .) -}}
{{- else -}}
{{- printf "%s-superuser" (include "newsfeed.cassandra.clusterName" .) -}}
{{- end -}}
{{- end -}}

{{/* CASSANDRA_CONTACT_POINTS: cass-operator's Service of the first DC (`<cluster>-<dc>-service`, both names made fit
     for Kubernetes; the DC by its metadata.name, which names the CassandraDatacenter), or the external list. */}}
{{- define "newsfeed.cassandra.contactPoints" -}}
{{- if .Values.cassandra.enabled -}}
{{- $dc := "" -}}
{{- with (first (include "newsfeed.cassandra.datacenters" . | fromYaml).list) }}{{ $dc = .metadata.name }}{{ end -}}
{{- printf "%s-%s-service:9042" (include "newsfeed.cassandra.sanitizedName" .) (include "newsfeed.cassandra.k8sName" $dc) -}}
{{- else -}}
{{- .Values.externalCassandra.contactPoints -}}
{{- end -}}
{{- end -}}

{{/* The keyspace replication map as CQL. */}}
{{- define "newsfeed.cassandra.replication" -}}
{{- $replication := dict -}}
{{- if .Values.schema.cassandra.replication -}}
{{- $replication = .Values.schema.cassandra.replication -}}
{{- else -}}
{{- $_ := set $replication "class" "NetworkTopologyStrategy" -}}
{{- if .Values.cassandra.enabled -}}
{{- range (include "newsfeed.cassandra.datacenters" . | fromYaml).list -}}
{{- $_ := set $replication (default .metadata.name .datacenterName) (min (int .size) 3) -}}
{{- end -}}
{{- else -}}
{{- $_ := set $replication .Values.externalCassandra.localDatacenter 1 -}}
{{- end -}}
{{- end -}}
{{- $pairs := list -}}
{{- range $key := keys $replication | sortAlpha -}}
{{- $pairs = append $pairs (printf "'%s': '%v'" $key (index $replication $key)) -}}
{{- end -}}
{{- printf "{%s}" (join ", " $pairs) -}}
{{- end -}}

{{/* ------------------------------------------------------------------------------------------------ redis */}}

{{/* Bitnami's fullname rule for the redis subchart. */}}
{{- define "newsfeed.redis.fullname" -}}
{{- if .Values.redis.fullnameOverride -}}
{{- .Values.redis.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default "redis" .Values.redis.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "newsfeed.redis.authSecretName" -}}
{{- printf "%s-redis-auth" (include "newsfeed.fullname" .) -}}
{{- end -}}

{{- define "newsfeed.redis.host" -}}
{{- if .Values.redis.enabled -}}
{{- printf "%s-master" (include "newsfeed.redis.fullname" .) -}}
{{- else -}}
{{- .Values.externalRedis.host -}}
{{- end -}}
{{- end -}}

{{- define "newsfeed.redis.port" -}}
{{- ternary 6379 .Values.externalRedis.port .Values.redis.enabled -}}
{{- end -}}

{{/* ------------------------------------------------------------------------------------------------ kafka */}}

{{/* Bitnami's fullname rule for the kafka subchart. */}}
{{- define "newsfeed.kafka.fullname" -}}
{{- if .Values.kafka.fullnameOverride -}}
{{- .Values.kafka.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default "kafka" .Values.kafka.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The dead-letter topic of a consumer group, named as the services name it by default: <topic>.<group>.dead-letter.
Usage: include "newsfeed.kafka.deadLetterTopic" (dict "group" .Values.schema.kafka.inboundGroup "context" .)
*/}}
{{- define "newsfeed.kafka.deadLetterTopic" -}}
{{- printf "%s.%s.dead-letter" .context.Values.schema.kafka.topic .group -}}
{{- end -}}

{{/*
Hours as Kafka's retention.ms. Usage: include "newsfeed.kafka.retentionMs" .Values.schema.kafka.retentionHours
*/}}
{{- define "newsfeed.kafka.retentionMs" -}}
{{- mul (int .) 3600000 -}}
{{- end -}}

{{- define "newsfeed.kafka.bootstrapServers" -}}
{{- if .Values.kafka.enabled -}}
{{- printf "%s:9092" (include "newsfeed.kafka.fullname" .) -}}
{{- else -}}
{{- .Values.externalKafka.bootstrapServers -}}
{{- end -}}
{{- end -}}

{{/* ------------------------------------------------------------------------------------------------ solr */}}

{{- define "newsfeed.solr.cloudName" -}}
{{- printf "%s-solr" (include "newsfeed.fullname" .) -}}
{{- end -}}

{{- define "newsfeed.solr.url" -}}
{{- if .Values.solr.enabled -}}
{{- $cloud := default dict .Values.solr.cloud -}}
{{- $addr := default dict $cloud.solrAddressability -}}
{{- printf "http://%s-solrcloud-common:%v/solr" (include "newsfeed.solr.cloudName" .) (default 80 $addr.commonServicePort) -}}
{{- else -}}
{{- .Values.externalSolr.url | trimSuffix "/" -}}
{{- end -}}
{{- end -}}

{{/* ------------------------------------------------------------------------------------------------ stores per service */}}

{{/* Which stores a service uses (edge: none, it calls the other services). */}}
{{- define "newsfeed.service.stores" -}}
{{- $stores := dict "social-graph" (list "postgresql" "redis") "outbound" (list "cassandra" "kafka") "inbound" (list "cassandra" "kafka" "redis") "search" (list "kafka" "solr") "edge" (list) -}}
{{- join " " (index $stores .) -}}
{{- end -}}

{{/* "true" when at least one enabled service uses the store: (dict "store" "kafka" "context" $). */}}
{{- define "newsfeed.store.used" -}}
{{- $store := .store -}}
{{- $context := .context -}}
{{- range $service := splitList " " (include "newsfeed.services" $context) -}}
{{- if and (include "newsfeed.service.enabled" (dict "service" $service "context" $context)) (has $store (splitList " " (include "newsfeed.service.stores" $service))) -}}
true
{{- end -}}
{{- end -}}
{{- end -}}

{{/* ------------------------------------------------------------------------------------------------ validation */}}

{{- define "newsfeed.validateValues" -}}
{{- $messages := list -}}
{{- if and (include "newsfeed.store.used" (dict "store" "postgresql" "context" .)) (not .Values.postgresql.enabled) (not .Values.externalPostgresql.host) -}}
{{- $messages = append $messages "postgresql.enabled=false needs externalPostgresql.host (social-graph stores participants there)" -}}
{{- end -}}
{{- if and .Values.postgresql.enabled .Values.postgresql.metrics.podMonitor.enabled (default dict .Values.postgresql.cluster.monitoring).enablePodMonitor -}}
{{- $messages = append $messages "postgresql.metrics.podMonitor.enabled and postgresql.cluster.monitoring.enablePodMonitor both make PodMonitor <release>-postgresql: keep the first (CloudNativePG 1.30 deprecates the second)" -}}
{{- end -}}
{{- if and (include "newsfeed.store.used" (dict "store" "cassandra" "context" .)) (not .Values.cassandra.enabled) (not .Values.externalCassandra.contactPoints) -}}
{{- $messages = append $messages "cassandra.enabled=false needs externalCassandra.contactPoints (outbound/inbound feeds live there)" -}}
{{- end -}}
{{- if and .Values.cassandra.enabled (include "newsfeed.store.used" (dict "store" "cassandra" "context" .)) (not (include "newsfeed.cassandra.localDatacenter" .)) -}}
{{- $messages = append $messages "cassandra.cluster.cassandra.datacenters needs at least one datacenter with metadata.name" -}}
{{- end -}}
{{- /* a pinned management-api image must carry the Cassandra version cass-operator configures it for; a version
     the CRD refuses anyway (e.g. "latest") is left to the API server, an image pinned by digest to the user */ -}}
{{- $cass := (default dict (default dict .Values.cassandra.cluster).cassandra) -}}
{{- if and .Values.cassandra.enabled $cass.serverImage (regexMatch "^[0-9]+\\.[0-9]+\\.[0-9]+$" (toString $cass.serverVersion)) -}}
{{- $imageTag := trimPrefix ":" (regexFind ":[^:/]+$" (regexReplaceAll "@.*$" (toString $cass.serverImage) "")) -}}
{{- if and $imageTag (not (regexMatch (printf "^%s([^0-9].*)?$" (replace "." "\\." (toString $cass.serverVersion))) $imageTag)) -}}
{{- $messages = append $messages (printf "cassandra.cluster.cassandra.serverImage %s does not carry serverVersion %s (its tag must start with it): set both" $cass.serverImage (toString $cass.serverVersion)) -}}
{{- end -}}
{{- end -}}
{{- if and (include "newsfeed.store.used" (dict "store" "redis" "context" .)) (not .Values.redis.enabled) (not .Values.externalRedis.host) -}}
{{- $messages = append $messages "redis.enabled=false needs externalRedis.host (social-graph's and inbound's caches)" -}}
{{- end -}}
{{- if and (include "newsfeed.store.used" (dict "store" "kafka" "context" .)) (not .Values.kafka.enabled) (not .Values.externalKafka.bootstrapServers) -}}
{{- $messages = append $messages "kafka.enabled=false needs externalKafka.bootstrapServers (the outbound posted events)" -}}
{{- end -}}
{{- if and (include "newsfeed.store.used" (dict "store" "solr" "context" .)) (not .Values.solr.enabled) (not .Values.externalSolr.url) -}}
{{- $messages = append $messages "solr.enabled=false needs externalSolr.url (search's index)" -}}
{{- end -}}
{{- if and .Values.k6.enabled (not (.Files.Glob "files/k6/*.js")) -}}
{{- $messages = append $messages "k6.enabled=true but files/k6/*.js is missing: files/k6 is a symlink to ../../../k6; copy the chart with `cp -rL` (or package it with helm package), or set k6.enabled=false" -}}
{{- end -}}
{{- if .Values.k6.enabled -}}
{{- range $name, $scenario := .Values.k6.scenarios -}}
{{- $script := default (printf "%s.js" $name) $scenario.script -}}
{{- if and $scenario.enabled (not ($.Files.Get (printf "files/k6/%s" $script))) -}}
{{- $messages = append $messages (printf "k6.scenarios.%s: script files/k6/%s not found (k6/ of the repository)" $name $script) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and .Values.k6.operator.enabled (not (hasKey .Values.k6.scenarios .Values.k6.operator.scenario)) -}}
{{- $messages = append $messages (printf "k6.operator.scenario %q is not one of k6.scenarios" .Values.k6.operator.scenario) -}}
{{- end -}}
{{- if and .Values.monitoring.prometheusRule.enabled (not (.Files.Get "files/prometheus/newsfeed.rules.yml")) -}}
{{- $messages = append $messages "monitoring.prometheusRule.enabled=true but files/prometheus/newsfeed.rules.yml is missing" -}}
{{- end -}}
{{- if and .Values.auth.enabled (not (trim (toString .Values.auth.issuer))) -}}
{{- $messages = append $messages "auth.enabled=true needs auth.issuer (the iss every token must carry): without it the services refuse to start" -}}
{{- end -}}
{{- if gt (len .Release.Name) 40 -}}
{{- $messages = append $messages (printf "release name %s has %d characters, at most 40: the chart's objects are named <release>-<what> within Kubernetes' 63, and values.yaml refers to them by the release name" .Release.Name (len .Release.Name)) -}}
{{- end -}}
{{- $messages = concat $messages (include "newsfeed.storeAuth.problems" . | fromYamlArray) -}}
{{- if $messages -}}
{{- fail (printf "\n\nVALUES VALIDATION:\n  - %s\n" (join "\n  - " $messages)) -}}
{{- end -}}
{{- end -}}
