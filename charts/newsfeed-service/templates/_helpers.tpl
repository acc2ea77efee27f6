{{/*
Helpers of the generic newsfeed service chart. Names follow `newsfeed-service.<thing>`.
*/}}

{{/* The five services this chart can run. */}}
{{- define "newsfeed-service.components" -}}
social-graph outbound inbound search edge
{{- end -}}

{{/*
The service this release runs: `.Values.component`, else the chart name (the alias inside the umbrella chart).
*/}}
{{- define "newsfeed-service.component" -}}
{{- default .Chart.Name .Values.component -}}
{{- end -}}

{{/* Name used in `app.kubernetes.io/name` and in resource names. */}}
{{- define "newsfeed-service.name" -}}
{{- default (include "newsfeed-service.component" .) .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Full name: fullnameOverride, else `<release>-<name>`, or `<release>` when the release name already contains it.
*/}}
{{- define "newsfeed-service.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "newsfeed-service.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Chart label value. */}}
{{- define "newsfeed-service.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Image tag: image.tag, else the chart appVersion. */}}
{{- define "newsfeed-service.imageTag" -}}
{{- default .Chart.AppVersion .Values.image.tag -}}
{{- end -}}

{{/* Selector labels: stable for the life of a Deployment. */}}
{{- define "newsfeed-service.selectorLabels" -}}
app.kubernetes.io/name: {{ include "newsfeed-service.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Labels of every object; commonLabels never replace the chart's own, which selectors match on. */}}
{{- define "newsfeed-service.labels" -}}
{{- $own := dict "app.kubernetes.io/component" "service" "app.kubernetes.io/part-of" "newsfeed"
  "app.kubernetes.io/version" (include "newsfeed-service.imageTag" . | trunc 63 | trimSuffix "-")
  "app.kubernetes.io/managed-by" .Release.Service "helm.sh/chart" (include "newsfeed-service.chart" .) -}}
{{- $own = merge $own (include "newsfeed-service.selectorLabels" . | fromYaml) -}}
{{- toYaml (merge $own (deepCopy (default dict .Values.commonLabels))) -}}
{{- end -}}

{{/* metadata.annotations block content (common annotations), empty when none. */}}
{{- define "newsfeed-service.annotations" -}}
{{- with .Values.commonAnnotations }}
{{- toYaml . }}
{{- end }}
{{- end -}}

{{/* Full image reference: registry/repository:tag or @digest. */}}
{{- define "newsfeed-service.image" -}}
{{- $registry := default .Values.image.registry .Values.global.imageRegistry -}}
{{- $repository := default (printf "newsfeed-benchmark/newsfeed-%s" (include "newsfeed-service.component" .)) .Values.image.repository -}}
{{- $ref := $repository -}}
{{- if $registry -}}
{{- $ref = printf "%s/%s" $registry $repository -}}
{{- end -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $ref .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $ref (include "newsfeed-service.imageTag" .) -}}
{{- end -}}
{{- end -}}

{{/* imagePullSecrets list (global + chart), de-duplicated. */}}
{{- define "newsfeed-service.imagePullSecrets" -}}
{{- $secrets := list -}}
{{- range (concat (default list .Values.global.imagePullSecrets) (default list .Values.image.pullSecrets)) -}}
{{- $name := . -}}
{{- if kindIs "map" . }}{{ $name = .name }}{{ end -}}
{{- $secrets = append $secrets $name -}}
{{- end -}}
{{- with ($secrets | uniq) }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- end -}}

{{/* ServiceAccount name. */}}
{{- define "newsfeed-service.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "newsfeed-service.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Termination grace period: explicit, else shutdownGraceSeconds + 10. */}}
{{- define "newsfeed-service.terminationGracePeriodSeconds" -}}
{{- if ne (toString .Values.terminationGracePeriodSeconds) "" -}}
{{- .Values.terminationGracePeriodSeconds | int -}}
{{- else -}}
{{- add (.Values.shutdownGraceSeconds | int) 10 -}}
{{- end -}}
{{- end -}}

{{/*
Render a value that may contain templates. Usage:
{{ include "newsfeed-service.tplvalues.render" (dict "value" .Values.x "context" $) }}
*/}}
{{- define "newsfeed-service.tplvalues.render" -}}
{{- $value := typeIs "string" .value | ternary .value (.value | toYaml) -}}
{{- if contains "{{" $value -}}
{{- tpl $value .context -}}
{{- else -}}
{{- $value -}}
{{- end -}}
{{- end -}}

{{/* The container's env list: HTTP_PORT, SHUTDOWN_GRACE_SECONDS, HTTP_MAX_IN_FLIGHT, secretEnv, env, extraEnv (in this order). */}}
{{- define "newsfeed-service.env" -}}
- name: HTTP_PORT
  value: {{ .Values.containerPorts.http | quote }}
- name: SHUTDOWN_GRACE_SECONDS
  value: {{ .Values.shutdownGraceSeconds | quote }}
- name: HTTP_MAX_IN_FLIGHT
  value: {{ .Values.maxInFlight | quote }}
{{- range $name, $ref := .Values.secretEnv }}
{{- if $ref }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ tpl (required (printf "secretEnv.%s.name is required" $name) $ref.name) $ }}
      key: {{ tpl (required (printf "secretEnv.%s.key is required" $name) $ref.key) $ }}
      {{- if $ref.optional }}
      optional: true
      {{- end }}
{{- end }}
{{- end }}
{{- range $name, $value := .Values.env }}
{{- if not (kindIs "invalid" $value) }}
- name: {{ $name }}
  value: {{ tpl (toString $value) $ | quote }}
{{- end }}
{{- end }}
{{- with .Values.extraEnv }}
{{ include "newsfeed-service.tplvalues.render" (dict "value" . "context" $) }}
{{- end }}
{{- end -}}

{{/* Fail early, with a clear message, on values the schema cannot check. */}}
{{- define "newsfeed-service.validateValues" -}}
{{- $component := include "newsfeed-service.component" . -}}
{{- if not (has $component (splitList " " (include "newsfeed-service.components" .))) -}}
{{- fail (printf "component must be one of: %s (got %q). Install with --set component=<service>, or use the umbrella chart charts/newsfeed" (include "newsfeed-service.components" .) $component) -}}
{{- end -}}
{{- if le (include "newsfeed-service.terminationGracePeriodSeconds" . | int) (.Values.shutdownGraceSeconds | int) -}}
{{- fail (printf "terminationGracePeriodSeconds (%s) must be greater than shutdownGraceSeconds (%v): Kubernetes kills the pod before the service has drained" (include "newsfeed-service.terminationGracePeriodSeconds" .) .Values.shutdownGraceSeconds) -}}
{{- end -}}
{{- if and .Values.autoscaling.hpa.enabled (lt (.Values.autoscaling.hpa.maxReplicas | int) (.Values.autoscaling.hpa.minReplicas | int)) -}}
{{- fail "autoscaling.hpa.maxReplicas must be >= autoscaling.hpa.minReplicas" -}}
{{- end -}}
{{- if and .Values.autoscaling.hpa.enabled (eq (toString .Values.autoscaling.hpa.targetCPU) "") (eq (toString .Values.autoscaling.hpa.targetMemory) "") (empty .Values.autoscaling.hpa.podsMetrics) (empty .Values.autoscaling.hpa.customMetrics) -}}
{{- fail "autoscaling.hpa.enabled needs at least one metric: targetCPU, targetMemory, podsMetrics or customMetrics" -}}
{{- end -}}
{{- end -}}
