{{/* Name of the k6 scripts ConfigMap. */}}
{{- define "newsfeed.k6.scriptsConfigMap" -}}
{{- printf "%s-k6-scripts" (include "newsfeed.fullname" .) -}}
{{- end -}}

{{/*
The scripts volume: ConfigMap keys cannot contain "/", so lib/x.js is stored as lib.x.js and mapped back, giving
the two-level layout the scripts import from (k6/README.md, "In a cluster").
*/}}
{{- define "newsfeed.k6.scriptsVolume" -}}
- name: scripts
  configMap:
    name: {{ include "newsfeed.k6.scriptsConfigMap" . }}
    items:
      {{- range $path, $_ := .Files.Glob "files/k6/*.js" }}
      - key: {{ base $path }}
        path: {{ base $path }}
      {{- end }}
      {{- range $path, $_ := .Files.Glob "files/k6/lib/*.js" }}
      - key: lib.{{ base $path }}
        path: lib/{{ base $path }}
      {{- end }}
- name: tmp
  emptyDir:
    sizeLimit: 256Mi
{{- end -}}

{{/* Environment of a k6 run: (dict "scenario" $name "testid" $envVarOrNil "context" $). */}}
{{- define "newsfeed.k6.env" -}}
{{- $ctx := .context -}}
{{- $k6 := $ctx.Values.k6 -}}
{{- $scenario := index $k6.scenarios .scenario -}}
{{- if .testidFromJob }}
# the run's id is the Job's name (kubectl create job --from=cronjob/... <name>), a label on every series
- name: TESTID
  valueFrom:
    fieldRef:
      fieldPath: metadata.labels['batch.kubernetes.io/job-name']
{{- else }}
- name: TESTID
  value: {{ printf "%s-k6-%s-r%d" $ctx.Release.Name .scenario (int $ctx.Release.Revision) | quote }}
{{- end }}
{{- if $k6.baseUrl }}
- name: BASE_URL
  value: {{ $k6.baseUrl | quote }}
{{- else }}
{{- range $service := splitList " " (include "newsfeed.services" $ctx) }}
- name: {{ $service | upper | replace "-" "_" }}_URL
  value: {{ include "newsfeed.service.url" (dict "service" $service "context" $ctx) | quote }}
{{- end }}
{{- end }}
- name: SUMMARY_JSON
  value: /tmp/summary.json
{{- if $k6.prometheusRemoteWrite.enabled }}
- name: K6_PROMETHEUS_RW_SERVER_URL
  value: {{ required "k6.prometheusRemoteWrite.url is required" $k6.prometheusRemoteWrite.url | quote }}
- name: K6_PROMETHEUS_RW_TREND_STATS
  value: {{ $k6.prometheusRemoteWrite.trendStats | quote }}
{{- end }}
{{- $env := merge (deepCopy (default dict $scenario.env)) (default dict $k6.env) }}
{{- range $name := keys $env | sortAlpha }}
- name: {{ $name }}
  value: {{ index $env $name | toString | quote }}
{{- end }}
{{- end -}}

{{/* k6 arguments after `k6 run`: (dict "scenario" $name "context" $). */}}
{{- define "newsfeed.k6.args" -}}
{{- $k6 := .context.Values.k6 -}}
{{- $args := list "--no-usage-report" -}}
{{- if $k6.prometheusRemoteWrite.enabled }}{{ $args = concat $args (list "-o" "experimental-prometheus-rw") }}{{ end -}}
{{- toJson $args -}}
{{- end -}}
