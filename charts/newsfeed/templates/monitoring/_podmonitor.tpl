{{/* What the chart's PodMonitors of the stores (`<store>.metrics.podMonitor`) and the Kafka lag exporter's
     ServiceMonitor (`monitoring.kafkaLagExporter.serviceMonitor`) share, from their values. */}}

{{/* metadata of the PodMonitor or ServiceMonitor NAME of COMPONENT: release namespace, the chart's labels plus the
     values' labels, annotations. Call with (dict "name" NAME "component" COMPONENT "values" MONITOR_VALUES
     "context" $). */}}
{{- define "newsfeed.monitoring.podMonitorMetadata" -}}
name: {{ .name }}
namespace: {{ .context.Release.Namespace | quote }}
labels:
  {{- include "newsfeed.labels" (dict "component" .component "context" .context) | nindent 2 }}
  {{- with .values.labels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- with (include "newsfeed.annotations" (dict "annotations" .values.annotations "context" .context)) }}
annotations:
  {{- . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The scrape settings of a podMetricsEndpoints (or endpoints) entry from the same values: interval,
     scrapeTimeout, relabelings, metricRelabelings (each only when set). */}}
{{- define "newsfeed.monitoring.scrapeSettings" -}}
{{- with .interval }}
interval: {{ . }}
{{- end }}
{{- with .scrapeTimeout }}
scrapeTimeout: {{ . }}
{{- end }}
{{- with .relabelings }}
relabelings:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .metricRelabelings }}
metricRelabelings:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
