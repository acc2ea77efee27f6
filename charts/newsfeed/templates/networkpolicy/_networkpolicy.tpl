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

{{/* Ports of a `host:port,host:port` list (default when none), as a YAML list of NetworkPolicyPorts. */}}
{{- define "newsfeed.networkPolicy.portsOf" -}}
{{- $ports := list -}}
{{- range (splitList "," .list) -}}
{{- $hostPort := trim . -}}
{{- if regexMatch ":[0-9]+$" $hostPort -}}
{{- $ports = append $ports (regexFind "[0-9]+$" $hostPort | int) -}}
{{- end -}}
{{- end -}}
{{- if not $ports }}{{ $ports = list (int .default) }}{{ end -}}
{{- range ($ports | uniq) }}
- port: {{ . }}
  protocol: TCP
{{- end -}}
{{- end -}}

{{/* Egress rule to one store, in-cluster (pod selector) or external: (dict "store" "kafka" "context" $). */}}
{{- define "newsfeed.networkPolicy.storeEgress" -}}
{{- $ctx := .context -}}
{{- $v := $ctx.Values -}}
{{- $internal := (index $v .store).enabled -}}
{{- $selector := dict -}}
{{- $ports := "" -}}
{{- if eq .store "postgresql" -}}
{{- $selector = dict "cnpg.io/cluster" (include "newsfeed.postgresql.clusterName" $ctx) -}}
{{- $ports = ternary "- port: 5432\n  protocol: TCP" (include "newsfeed.networkPolicy.portsOf" (dict "list" (printf "x:%v" $v.externalPostgresql.port) "default" 5432)) $internal -}}
{{- else if eq .store "redis" -}}
{{- $selector = dict "app.kubernetes.io/instance" $ctx.Release.Name "app.kubernetes.io/name" (default "redis" $v.redis.nameOverride) -}}
{{- $ports = ternary "- port: 6379\n  protocol: TCP" (include "newsfeed.networkPolicy.portsOf" (dict "list" (printf "x:%v" $v.externalRedis.port) "default" 6379)) $internal -}}
{{- else if eq .store "cassandra" -}}
{{- $selector = dict "cassandra.datastax.com/cluster" (include "newsfeed.cassandra.clusterName" $ctx) -}}
{{- $ports = ternary "- port: 9042\n  protocol: TCP" (include "newsfeed.networkPolicy.portsOf" (dict "list" $v.externalCassandra.contactPoints "default" 9042)) $internal -}}
{{- else if eq .store "kafka" -}}
{{- $selector = dict "app.kubernetes.io/instance" $ctx.Release.Name "app.kubernetes.io/name" (default "kafka" $v.kafka.nameOverride) -}}
{{- $ports = ternary "- port: 9092\n  protocol: TCP" (include "newsfeed.networkPolicy.portsOf" (dict "list" $v.externalKafka.bootstrapServers "default" 9092)) $internal -}}
{{- else if eq .store "solr" -}}
{{- $selector = dict "solr-cloud" (include "newsfeed.solr.cloudName" $ctx) -}}
{{- $addr := default dict (default dict $v.solr.cloud).solrAddressability -}}
{{- $external := regexReplaceAll "^[a-z]+://([^/]+).*$" (toString $v.externalSolr.url) "${1}" -}}
{{- $ports = ternary (printf "- port: %v\n  protocol: TCP" (default 8983 $addr.podPort)) (include "newsfeed.networkPolicy.portsOf" (dict "list" $external "default" (ternary 443 80 (hasPrefix "https" (toString $v.externalSolr.url))))) $internal -}}
{{- end -}}
- ports:
    {{- $ports | nindent 4 }}
  {{- if $internal }}
  to:
    - podSelector:
        matchLabels:
          {{- toYaml $selector | nindent 10 }}
  {{- else if $v.networkPolicy.externalStorePeers }}
  to:
    {{- toYaml $v.networkPolicy.externalStorePeers | nindent 4 }}
  {{- end }}
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
