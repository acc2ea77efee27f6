{{/* NetworkPolicy building blocks. Each define renders YAML list items. */}}

{{/* DNS egress rule. */}}
{{- define "newsfeed.networkPolicy.dnsEgress" -}}
{{- $dns := .Values.networkPolicy.dns -}}
{{- $peer := dict "namespaceSelector" (default dict $dns.namespaceSelector) -}}
{{- with $dns.podSelector }}{{ $_ := set $peer "podSelector" . }}{{ end -}}
- to:
    {{- toYaml (list $peer) | nindent 4 }}
  ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
{{- end -}}

{{/* The trace receiver (values tracing.endpoint), reached by every service with tracing.enabled. */}}
{{- define "newsfeed.networkPolicy.tracingEgress" -}}
{{- $t := .Values.networkPolicy.tracing -}}
{{- $peer := dict "namespaceSelector" (default dict $t.namespaceSelector) -}}
{{- with $t.podSelector }}{{ $_ := set $peer "podSelector" . }}{{ end -}}
- to:
    {{- toYaml (list $peer) | nindent 4 }}
  ports:
    - port: {{ $t.port }}
      protocol: TCP
{{- end -}}

{{/* The Prometheus peer (scrapes /metrics, receives k6 remote writes). */}}
{{- define "newsfeed.networkPolicy.prometheusPeer" -}}
{{- $p := .Values.networkPolicy.prometheus -}}
{{- $peer := dict "namespaceSelector" (default dict $p.namespaceSelector) -}}
{{- with $p.podSelector }}{{ $_ := set $peer "podSelector" . }}{{ end -}}
{{- toYaml (list $peer) -}}
{{- end -}}

{{/* The ingress controller / Gateway peer. */}}
{{- define "newsfeed.networkPolicy.gatewayPeer" -}}
{{- $g := .Values.networkPolicy.gateway -}}
{{- $peer := dict "namespaceSelector" (default dict $g.namespaceSelector) -}}
{{- with $g.podSelector }}{{ $_ := set $peer "podSelector" . }}{{ end -}}
{{- toYaml (list $peer) -}}
{{- end -}}

{{/* A peer of another namespace from values {namespaceSelector, podSelector} (an operator, Prometheus, the
     gateway), as a YAML list of one NetworkPolicyPeer: the namespace selector always, the pod selector when set. */}}
{{- define "newsfeed.networkPolicy.namespacePeer" -}}
{{- $peer := dict "namespaceSelector" (default dict .namespaceSelector) -}}
{{- with .podSelector }}{{ $_ := set $peer "podSelector" . }}{{ end -}}
{{- toYaml (list $peer) -}}
{{- end -}}

{{/* NetworkPolicyPorts (TCP) of a list of port numbers, as YAML. */}}
{{- define "newsfeed.networkPolicy.portList" -}}
{{- $numbers := list -}}
{{- range . }}{{ $numbers = append $numbers (int .) }}{{ end -}}
{{- $ports := list -}}
{{- range (uniq $numbers) }}{{ $ports = append $ports (dict "port" . "protocol" "TCP") }}{{ end -}}
{{- toYaml $ports -}}
{{- end -}}

{{/* cass-operator's `cassandra.datastax.com/cluster` pod label: the cluster name of the K8ssandraCluster
     (`cassandra.cluster.cassandra.clusterName`, default its own name) cleaned as cass-operator's CleanLabelValue
     does (spaces dropped, then only the runs of label characters kept). */}}
{{- define "newsfeed.networkPolicy.cassandraClusterLabel" -}}
{{- $cass := default dict (default dict .Values.cassandra.cluster).cassandra -}}
{{- $name := default (include "newsfeed.cassandra.clusterName" .) $cass.clusterName | toString | replace " " "" -}}
{{- regexFindAll "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?" $name -1 | join "" -}}
{{- end -}}

{{/*
matchLabels of the pods of one in-cluster store, as the operators and subcharts label them:
(dict "store" "postgresql|cassandra|redis|kafka|solr|zookeeper" "context" $).
  postgresql  CloudNativePG: every pod of the Cluster (instances and its initdb/join Jobs) has cnpg.io/cluster
  cassandra   cass-operator: app.kubernetes.io/managed-by=cass-operator, cassandra.datastax.com/cluster
  redis/kafka Bitnami: app.kubernetes.io/name (the chart name or nameOverride), app.kubernetes.io/instance=release
  solr        Solr Operator: solr-cloud=<SolrCloud name>, technology=solr-cloud
  zookeeper   the ZooKeeper the Solr Operator provides (zookeeper-operator pods carry the ZookeeperCluster's labels,
              which the Solr Operator sets): solr-cloud=<SolrCloud name>, technology=zookeeper
*/}}
{{- define "newsfeed.networkPolicy.storeSelector" -}}
{{- $ctx := .context -}}
{{- if eq .store "postgresql" -}}
cnpg.io/cluster: {{ include "newsfeed.postgresql.clusterName" $ctx | quote }}
{{- else if eq .store "cassandra" -}}
app.kubernetes.io/managed-by: cass-operator
cassandra.datastax.com/cluster: {{ include "newsfeed.networkPolicy.cassandraClusterLabel" $ctx | quote }}
{{- else if or (eq .store "redis") (eq .store "kafka") -}}
app.kubernetes.io/instance: {{ $ctx.Release.Name | quote }}
app.kubernetes.io/name: {{ default .store (index $ctx.Values .store).nameOverride | quote }}
{{- else if eq .store "solr" -}}
solr-cloud: {{ include "newsfeed.solr.cloudName" $ctx | quote }}
technology: solr-cloud
{{- else if eq .store "zookeeper" -}}
solr-cloud: {{ include "newsfeed.solr.cloudName" $ctx | quote }}
technology: zookeeper
{{- end -}}
{{- end -}}

{{/*
The TCP ports of one in-cluster store's pods, by who uses them: (dict "store" "kafka" "context" $) -> YAML
{client, peer, operator, metrics}: the clients' port, the ports its own pods use between them (replication,
gossip, quorum), those its operator calls, and its metrics ports (Prometheus).
*/}}
{{- define "newsfeed.networkPolicy.storePorts" -}}
{{- $v := .context.Values -}}
{{- $ports := dict -}}
{{- if eq .store "postgresql" -}}
{{- /* 5432 PostgreSQL (streaming replication too), 8000 the instance manager's status API, 9187 its metrics */ -}}
{{- $ports = dict "client" (list 5432) "peer" (list 5432 8000) "operator" (list 8000) "metrics" (list 9187) -}}
{{- else if eq .store "cassandra" -}}
{{- /* 9042 CQL, 7000/7001 internode (plain/TLS), 8080 the management API, 9000 and 9103 metrics */ -}}
{{- $ports = dict "client" (list 9042) "peer" (list 7000 7001) "operator" (list 8080) "metrics" (list 9000 9103) -}}
{{- else if eq .store "redis" -}}
{{- $redis := dig "master" "containerPorts" "redis" 6379 $v.redis -}}
{{- $metrics := ternary (list (dig "metrics" "containerPorts" "http" 9121 $v.redis)) (list) (dig "metrics" "enabled" false $v.redis) -}}
{{- $ports = dict "client" (list $redis) "peer" (list $redis (dig "sentinel" "containerPorts" "sentinel" 26379 $v.redis)) "operator" (list) "metrics" $metrics -}}
{{- else if eq .store "kafka" -}}
{{- $client := dig "listeners" "client" "containerPort" 9092 $v.kafka -}}
{{- $metrics := ternary (list (dig "metrics" "jmx" "containerPorts" "metrics" 5556 $v.kafka)) (list) (dig "metrics" "jmx" "enabled" false $v.kafka) -}}
{{- $ports = dict "client" (list $client) "peer" (list $client (dig "listeners" "controller" "containerPort" 9093 $v.kafka) (dig "listeners" "interbroker" "containerPort" 9094 $v.kafka)) "operator" (list) "metrics" $metrics -}}
{{- else if eq .store "solr" -}}
{{- $solr := dig "solrAddressability" "podPort" 8983 (default dict $v.solr.cloud) -}}
{{- /* Solr serves its metrics on its own port (solr.metrics.podMonitor) */ -}}
{{- $metrics := ternary (list $solr) (list) (dig "metrics" "podMonitor" "enabled" false $v.solr) -}}
{{- $ports = dict "client" (list $solr) "peer" (list $solr) "operator" (list $solr) "metrics" $metrics -}}
{{- else if eq .store "zookeeper" -}}
{{- /* 2181 clients, 2888 quorum, 3888 leader election, 7000 metrics, 8080 the admin server */ -}}
{{- $ports = dict "client" (list 2181) "peer" (list 2181 2888 3888) "operator" (list 2181 8080) "metrics" (list 7000) -}}
{{- end -}}
{{- toYaml $ports -}}
{{- end -}}

{{/* The in-cluster stores of the release whose pods get a NetworkPolicy, as a YAML list: the operators' custom
     resources the chart renders (used by an enabled service), the provided ZooKeeper of the SolrCloud, and the
     Bitnami subcharts (installed whenever enabled). */}}
{{- define "newsfeed.networkPolicy.inClusterStores" -}}
{{- $stores := list -}}
{{- range $store := list "postgresql" "cassandra" "solr" -}}
{{- if and (index $.Values $store).enabled (include "newsfeed.store.used" (dict "store" $store "context" $)) -}}
{{- $stores = append $stores $store -}}
{{- end -}}
{{- end -}}
{{- if and (has "solr" $stores) (dig "zookeeperRef" "provided" false (default dict .Values.solr.cloud)) -}}
{{- $stores = append $stores "zookeeper" -}}
{{- end -}}
{{- range $store := list "redis" "kafka" -}}
{{- if (index $.Values $store).enabled }}{{ $stores = append $stores $store }}{{ end -}}
{{- end -}}
{{- toYaml $stores -}}
{{- end -}}

{{/* `host` and `port` of each address of an external store's setting, as a YAML list:
     (dict "store" "kafka" "context" $). */}}
{{- define "newsfeed.networkPolicy.externalHosts" -}}
{{- $v := .context.Values -}}
{{- $list := "" -}}
{{- $default := 0 -}}
{{- if eq .store "postgresql" -}}
{{- $list = printf "%s:%v" $v.externalPostgresql.host $v.externalPostgresql.port -}}{{- $default = 5432 -}}
{{- else if eq .store "redis" -}}
{{- $list = printf "%s:%v" $v.externalRedis.host $v.externalRedis.port -}}{{- $default = 6379 -}}
{{- else if eq .store "cassandra" -}}
{{- $list = toString $v.externalCassandra.contactPoints -}}{{- $default = 9042 -}}
{{- else if eq .store "kafka" -}}
{{- $list = toString $v.externalKafka.bootstrapServers -}}{{- $default = 9092 -}}
{{- else if eq .store "solr" -}}
{{- $list = regexReplaceAll "^[a-z]+://([^/]+).*$" (toString $v.externalSolr.url) "${1}" -}}
{{- $default = ternary 443 80 (hasPrefix "https" (toString $v.externalSolr.url)) -}}
{{- end -}}
{{- $hosts := list -}}
{{- range (splitList "," $list) -}}
{{- $hostPort := trim . -}}
{{- if and $hostPort (not (hasPrefix ":" $hostPort)) -}}
{{- $host := $hostPort -}}
{{- $port := $default -}}
{{- if regexMatch ":[0-9]+$" $hostPort -}}
{{- $host = regexReplaceAll ":[0-9]+$" $hostPort "" -}}
{{- $port = regexFind "[0-9]+$" $hostPort -}}
{{- end -}}
{{- $hosts = append $hosts (dict "host" $host "port" (int $port)) -}}
{{- end -}}
{{- end -}}
{{- toYaml $hosts -}}
{{- end -}}

{{/*
Egress rules to one store, as a YAML list: (dict "store" "kafka" "context" $).
  in-cluster: its pods (storeSelector) on its client port;
  external, at an address that names an `externalEndpoints` entry (`name`, `name.<namespace>`, ...): that entry's
    addresses (ipBlock /32) on its target ports - NetworkPolicies see the endpoint the Service forwards to, not the
    Service's port;
  external elsewhere: the store's ports, to `networkPolicy.externalStorePeers` (empty: to any address).
*/}}
{{- define "newsfeed.networkPolicy.storeEgress" -}}
{{- $ctx := .context -}}
{{- $v := $ctx.Values -}}
{{- $rules := list -}}
{{- if (index $v .store).enabled -}}
{{- $ports := (include "newsfeed.networkPolicy.storePorts" . | fromYaml).client -}}
{{- $to := list (dict "podSelector" (dict "matchLabels" (include "newsfeed.networkPolicy.storeSelector" . | fromYaml))) -}}
{{- $rules = append $rules (dict "to" $to "ports" (include "newsfeed.networkPolicy.portList" $ports | fromYamlArray)) -}}
{{- else -}}
{{- $open := list -}}
{{- range $h := (include "newsfeed.networkPolicy.externalHosts" . | fromYamlArray) -}}
{{- $endpoint := dict -}}
{{- range $e := $v.externalEndpoints -}}
{{- if or (eq $h.host $e.name) (hasPrefix (printf "%s.%s." $e.name $ctx.Release.Namespace) (printf "%s." $h.host)) -}}
{{- $endpoint = $e -}}
{{- end -}}
{{- end -}}
{{- if $endpoint -}}
{{- $targets := list -}}
{{- $all := list -}}
{{- range $p := $endpoint.ports -}}
{{- $all = append $all (default $p.port $p.targetPort) -}}
{{- if eq (int $p.port) (int $h.port) }}{{ $targets = append $targets (default $p.port $p.targetPort) }}{{ end -}}
{{- end -}}
{{- $to := list -}}
{{- range $endpoint.addresses }}{{ $to = append $to (dict "ipBlock" (dict "cidr" (printf "%s/32" .))) }}{{ end -}}
{{- $rules = append $rules (dict "to" $to "ports" (include "newsfeed.networkPolicy.portList" (default $all $targets) | fromYamlArray)) -}}
{{- else -}}
{{- $open = append $open $h.port -}}
{{- end -}}
{{- end -}}
{{- if $open -}}
{{- $rule := dict "ports" (include "newsfeed.networkPolicy.portList" $open | fromYamlArray) -}}
{{- with $v.networkPolicy.externalStorePeers }}{{ $_ := set $rule "to" . }}{{ end -}}
{{- $rules = append $rules $rule -}}
{{- end -}}
{{- end -}}
{{- toYaml (uniq $rules) -}}
{{- end -}}

{{/* Egress rule to one service's pods: (dict "service" "social-graph" "context" $). */}}
{{- define "newsfeed.networkPolicy.serviceEgress" -}}
- to:
    - podSelector:
        matchLabels:
          {{- include "newsfeed.service.selectorLabels" . | nindent 10 }}
  ports:
    - port: {{ include "newsfeed.service.containerPort" . }}
      protocol: TCP
{{- end -}}

{{/* Common metadata of this chart's NetworkPolicies: (dict "name" "x" "context" $). */}}
{{- define "newsfeed.networkPolicy.metadata" -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ printf "%s-netpol-%s" (include "newsfeed.fullname" .context) .name }}
  namespace: {{ .context.Release.Namespace | quote }}
  labels:
    {{- include "newsfeed.labels" (dict "component" "network-policy" "context" .context) | nindent 4 }}
  {{- with (include "newsfeed.annotations" (dict "context" .context)) }}
  annotations:
    {{- . | nindent 4 }}
  {{- end }}
{{- end -}}
