{{/*
One schema Job: an init container waits (files/init/wait-for.sh) until the store answers `<step> check`, then the
container runs `<step> apply`. Plain Jobs (not hooks), named per release revision: they are created together with
the stores' custom resources and simply wait, and every upgrade re-applies the idempotent schema.
Usage: include "newsfeed.initJob" (dict "store" "kafka" "command" (list "sh" "/init/kafka.sh") "env" $envYaml
                                   "extraVolumes" "" "extraMounts" "" "context" $)
*/}}
{{- define "newsfeed.initJob" -}}
{{- $ctx := .context -}}
{{- $jobs := $ctx.Values.initJobs -}}
{{- $image := index $jobs.images .store -}}
{{- $component := printf "init-%s" .store -}}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ printf "%s-init-%s-r%d" (include "newsfeed.fullname" $ctx) .store (int $ctx.Release.Revision) }}
  namespace: {{ $ctx.Release.Namespace | quote }}
  labels:
    {{- include "newsfeed.labels" (dict "component" $component "context" $ctx) | nindent 4 }}
    newsfeed.io/schema-job: "true"
  {{- with (include "newsfeed.annotations" (dict "context" $ctx)) }}
  annotations:
    {{- . | nindent 4 }}
  {{- end }}
spec:
  backoffLimit: {{ $jobs.backoffLimit }}
  # the wait may take waitTimeoutSeconds, the schema step a few minutes more
  activeDeadlineSeconds: {{ add $jobs.waitTimeoutSeconds 900 }}
  {{- if ne (toString $jobs.ttlSecondsAfterFinished) "" }}
  ttlSecondsAfterFinished: {{ $jobs.ttlSecondsAfterFinished }}
  {{- end }}
  template:
    metadata:
      labels:
        {{- include "newsfeed.labels" (dict "component" $component "context" $ctx) | nindent 8 }}
    spec:
      restartPolicy: OnFailure
      automountServiceAccountToken: false
      enableServiceLinks: false
      {{- include "newsfeed.imagePullSecrets" $ctx | nindent 6 }}
      securityContext:
        {{- include "newsfeed.podSecurityContext" (dict "uid" $image.runAsUser) | nindent 8 }}
      {{- with $jobs.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $jobs.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      initContainers:
        - name: wait-for-{{ .store }}
          image: {{ include "newsfeed.image" (dict "image" $image "context" $ctx) }}
          imagePullPolicy: {{ default "IfNotPresent" $image.pullPolicy }}
          command: {{ toJson (concat (list "sh" "/init/wait-for.sh" .store) .command (list "check")) }}
          env:
            {{- .env | nindent 12 }}
          securityContext:
            {{- include "newsfeed.containerSecurityContext" . | nindent 12 }}
          {{- with $jobs.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            - name: init
              mountPath: /init
            - name: tmp
              mountPath: /tmp
            {{- with .extraMounts }}
            {{- . | nindent 12 }}
            {{- end }}
      containers:
        - name: schema
          image: {{ include "newsfeed.image" (dict "image" $image "context" $ctx) }}
          imagePullPolicy: {{ default "IfNotPresent" $image.pullPolicy }}
          command: {{ toJson (concat .command (list "apply")) }}
          env:
            {{- .env | nindent 12 }}
          securityContext:
            {{- include "newsfeed.containerSecurityContext" . | nindent 12 }}
          {{- with $jobs.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            - name: init
              mountPath: /init
            - name: tmp
              mountPath: /tmp
            {{- with .extraMounts }}
            {{- . | nindent 12 }}
            {{- end }}
      volumes:
        - name: init
          configMap:
            name: {{ include "newsfeed.fullname" $ctx }}-schema
        - name: tmp
          emptyDir:
            sizeLimit: 256Mi
        {{- with .extraVolumes }}
        {{- . | nindent 8 }}
        {{- end }}
{{- end -}}

{{/* Env entries every init container gets. */}}
{{- define "newsfeed.initJob.commonEnv" -}}
- name: WAIT_TIMEOUT_SECONDS
  value: {{ .Values.initJobs.waitTimeoutSeconds | quote }}
- name: POLL_INTERVAL_SECONDS
  value: {{ .Values.initJobs.pollIntervalSeconds | quote }}
- name: HOME
  value: /tmp
{{- end -}}
