{{/*
Store credentials (values `storeAuth`, docs/kubernetes.md "Store credentials"): every service its own user in each
store it uses, read from a Secret `<release>-<store>-<service>` (keys username, password) through the service's
secretEnv; the stores' admin credentials go to the schema Jobs only.
*/}}

{{/* The services that get a user of a store, and the secretEnv variables carrying it (username, password). */}}
{{- define "newsfeed.storeAuth.clients" -}}
{{- $clients := dict "kafka" (list "outbound" "inbound" "search") "cassandra" (list "outbound" "inbound") "solr" (list "search") -}}
{{- join " " (index $clients .) -}}
{{- end -}}

{{- define "newsfeed.storeAuth.vars" -}}
{{- $vars := dict "kafka" "KAFKA_SASL_USERNAME KAFKA_SASL_PASSWORD" "cassandra" "CASSANDRA_USERNAME CASSANDRA_PASSWORD" "solr" "SOLR_USERNAME SOLR_PASSWORD" -}}
{{- index $vars . -}}
{{- end -}}

{{/* "true" when per-service credentials are on for a store some enabled service uses: (dict "store" "kafka" "context" $). */}}
{{- define "newsfeed.storeAuth.on" -}}
{{- $auth := .context.Values.storeAuth -}}
{{- if and $auth.enabled (index $auth .store).enabled (include "newsfeed.store.used" (dict "store" .store "context" .context)) -}}
true
{{- end -}}
{{- end -}}

{{/* The enabled services that get a user of a store: (dict "store" "kafka" "context" $) -> "outbound inbound". */}}
{{- define "newsfeed.storeAuth.enabledClients" -}}
{{- $context := .context -}}
{{- $out := list -}}
{{- range $service := splitList " " (include "newsfeed.storeAuth.clients" .store) -}}
{{- if include "newsfeed.service.enabled" (dict "service" $service "context" $context) -}}
{{- $out = append $out $service -}}
{{- end -}}
{{- end -}}
{{- join " " $out -}}
{{- end -}}

{{/* "true" when the Kafka lag exporter (monitoring.kafkaLagExporter) gets a Kafka user of its own: storeAuth.kafka on.
     Its Secret, username and existing Secret follow the services' helpers with service "kafka-lag-exporter". */}}
{{- define "newsfeed.storeAuth.kafkaLagExporter" -}}
{{- if and .Values.monitoring.kafkaLagExporter.enabled (include "newsfeed.storeAuth.on" (dict "store" "kafka" "context" .)) -}}
true
{{- end -}}
{{- end -}}

{{/* Every holder of a store user this release makes: the enabled clients, and for Kafka the lag exporter
     (monitoring.kafkaLagExporter): (dict "store" "kafka" "context" $) -> "outbound inbound search kafka-lag-exporter". */}}
{{- define "newsfeed.storeAuth.holders" -}}
{{- $holders := splitList " " (include "newsfeed.storeAuth.enabledClients" .) -}}
{{- if and (eq .store "kafka") (include "newsfeed.storeAuth.kafkaLagExporter" .context) -}}
{{- $holders = append $holders "kafka-lag-exporter" -}}
{{- end -}}
{{- join " " (compact $holders) -}}
{{- end -}}

{{/* The Secret a service's user of a store is read from: (dict "store" "kafka" "service" "outbound" "context" $). */}}
{{- define "newsfeed.storeAuth.secretName" -}}
{{- $existing := index (default dict (index .context.Values.storeAuth .store).existingSecrets) .service -}}
{{- default (include "newsfeed.storeAuth.generatedName" .) (tpl (toString (default "" $existing)) .context) -}}
{{- end -}}

{{- define "newsfeed.storeAuth.generatedName" -}}
{{- printf "%s-%s-%s" (include "newsfeed.fullname" .context) .store .service -}}
{{- end -}}

{{/* The username of a generated Secret: (dict "store" "kafka" "service" "outbound" "context" $). */}}
{{- define "newsfeed.storeAuth.username" -}}
{{- $auth := index .context.Values.storeAuth .store -}}
{{- if eq .store "kafka" }}{{ index $auth.users .service }}
{{- else if eq .store "cassandra" }}{{ index $auth.roles .service }}
{{- else }}{{ $auth.username }}{{ end -}}
{{- end -}}

{{/*
A Secret of generated credentials, type basic-auth: the password is generated once and kept while the Secret exists
(lookup; `helm template` and GitOps renders see no cluster and make a new one each time: use existingSecrets there).
Usage: include "newsfeed.storeAuth.generatedSecret" (dict "name" "..." "username" "..." "component" "..." "context" $)
*/}}
{{- define "newsfeed.storeAuth.generatedSecret" -}}
{{- $existing := lookup "v1" "Secret" .context.Release.Namespace .name -}}
{{- $password := randAlphaNum 32 -}}
{{- if and $existing $existing.data (hasKey $existing.data "password") -}}
{{- $password = index $existing.data "password" | b64dec -}}
{{- end -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .name }}
  namespace: {{ .context.Release.Namespace | quote }}
  labels:
    {{- include "newsfeed.labels" (dict "component" .component "context" .context) | nindent 4 }}
  {{- with (include "newsfeed.annotations" (dict "context" .context)) }}
  annotations:
    {{- . | nindent 4 }}
  {{- end }}
type: kubernetes.io/basic-auth
data:
  username: {{ .username | b64enc | quote }}
  password: {{ $password | b64enc | quote }}
{{- end -}}

{{/* ------------------------------------------------------------------------------------------------ kafka */}}

{{/* The Secret with the Kafka admin's password (key client-passwords): Bitnami's `sasl.existingSecret`. */}}
{{- define "newsfeed.kafka.authSecretName" -}}
{{- tpl (toString (default (printf "%s-kafka-auth" .Release.Name) .Values.kafka.sasl.existingSecret)) . -}}
{{- end -}}

{{/* KAFKA_SECURITY_PROTOCOL of the clients: the chart's Kafka client listener, or externalKafka's. */}}
{{- define "newsfeed.kafka.securityProtocol" -}}
{{- if not (include "newsfeed.storeAuth.on" (dict "store" "kafka" "context" .)) -}}
PLAINTEXT
{{- else if .Values.kafka.enabled -}}
{{- upper .Values.kafka.listeners.client.protocol -}}
{{- else -}}
{{- upper .Values.externalKafka.securityProtocol -}}
{{- end -}}
{{- end -}}

{{/* ------------------------------------------------------------------------------------------------ solr */}}

{{/* The Solr admin of the schema Job as env entries (SOLR_ADMIN_USERNAME, SOLR_ADMIN_PASSWORD). */}}
{{- define "newsfeed.solr.adminEnv" -}}
{{- with .Values.storeAuth.solr.adminSecret -}}
- name: SOLR_ADMIN_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ tpl . $ }}
      key: username
- name: SOLR_ADMIN_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ tpl . $ }}
      key: password
{{- else -}}
{{- /* the Solr Operator's bootstrapped security.json: user admin, its password under key `admin` */ -}}
- name: SOLR_ADMIN_USERNAME
  value: admin
- name: SOLR_ADMIN_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "newsfeed.solr.cloudName" . }}-solrcloud-security-bootstrap
      key: admin
{{- end -}}
{{- end -}}

{{/* ------------------------------------------------------------------------------------------------ checks */}}

{{/*
What is wrong with the storeAuth values, as a YAML list of messages (validateValues fails with them): a service
that would read a Secret nobody makes, or credentials other than its own; a Kafka or Cassandra of this chart whose
server side disagrees with the switch.
*/}}
{{- define "newsfeed.storeAuth.problems" -}}
{{- $ctx := . -}}
{{- $messages := list -}}
{{- range $store := list "kafka" "cassandra" "solr" -}}
{{- $on := include "newsfeed.storeAuth.on" (dict "store" $store "context" $ctx) -}}
{{- $vars := splitList " " (include "newsfeed.storeAuth.vars" $store) -}}
{{- range $service := splitList " " (include "newsfeed.storeAuth.enabledClients" (dict "store" $store "context" $ctx)) -}}
{{- $want := include "newsfeed.storeAuth.secretName" (dict "store" $store "service" $service "context" $ctx) -}}
{{- $generated := include "newsfeed.storeAuth.generatedName" (dict "store" $store "service" $service "context" $ctx) -}}
{{- range $i, $var := $vars -}}
{{- $key := ternary "username" "password" (eq $i 0) -}}
{{- $ref := include "newsfeed.service.secretKeyRef" (dict "service" $service "var" $var "context" $ctx) | fromYaml -}}
{{- $got := default dict $ref.secretKeyRef -}}
{{- if $on -}}
{{- if or (ne (toString $got.name) $want) (ne (toString $got.key) $key) -}}
{{- $messages = append $messages (printf "storeAuth.%s: %s.secretEnv.%s must read key %s of Secret %s (its own user; got %s): set it, or storeAuth.%s.existingSecrets.%s" $store $service $var $key $want (ternary "nothing" (printf "%s/%s" (toString $got.name) (toString $got.key)) (empty $got)) $store $service) -}}
{{- end -}}
{{- else if eq (toString $got.name) $generated -}}
{{- $messages = append $messages (printf "storeAuth.%s is off, so Secret %s is not generated: set %s.secretEnv.%s to null (a store without authentication) or point it at your own Secret" $store $generated $service $var) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $kafkaOn := include "newsfeed.storeAuth.on" (dict "store" "kafka" "context" .) -}}
{{- if and .Values.kafka.enabled (include "newsfeed.store.used" (dict "store" "kafka" "context" .)) -}}
{{- $k := .Values.kafka -}}
{{- $protocol := upper (toString $k.listeners.client.protocol) -}}
{{- $override := default dict $k.overrideConfiguration -}}
{{- $authorizer := index $override "authorizer.class.name" -}}
{{- if $kafkaOn -}}
{{- $admin := .Values.storeAuth.kafka.adminUser -}}
{{- if not (hasPrefix "SASL_" $protocol) -}}
{{- $messages = append $messages (printf "storeAuth.kafka needs SASL on the chart's Kafka client listener: kafka.listeners.client.protocol=SASL_PLAINTEXT (or SASL_SSL), got %s" $protocol) -}}
{{- end -}}
{{- if not (has (upper .Values.storeAuth.kafka.mechanism) (splitList "," (upper (toString $k.sasl.enabledMechanisms)))) -}}
{{- $messages = append $messages (printf "storeAuth.kafka.mechanism %s is not one of kafka.sasl.enabledMechanisms (%s)" .Values.storeAuth.kafka.mechanism $k.sasl.enabledMechanisms) -}}
{{- end -}}
{{- if ne (toJson (default list $k.sasl.client.users)) (toJson (list $admin)) -}}
{{- $messages = append $messages (printf "kafka.sasl.client.users must be exactly [%s] (storeAuth.kafka.adminUser; Secret %s holds one password): the services' users are made by the topic Job, got %s" $admin (include "newsfeed.kafka.authSecretName" .) (toJson $k.sasl.client.users)) -}}
{{- end -}}
{{- if not $authorizer -}}
{{- $messages = append $messages "storeAuth.kafka needs ACLs enforced: kafka.overrideConfiguration[\"authorizer.class.name\"] (org.apache.kafka.metadata.authorizer.StandardAuthorizer)" -}}
{{- end -}}
{{- if not (has (printf "User:%s" $admin) (splitList ";" (toString (index $override "super.users")))) -}}
{{- $messages = append $messages (printf "kafka.overrideConfiguration[\"super.users\"] must name User:%s, the admin that creates topics, users and ACLs" $admin) -}}
{{- end -}}
{{- else -}}
{{- if eq (tpl (toString $k.sasl.existingSecret) $) (printf "%s-kafka-auth" .Release.Name) -}}
{{- $messages = append $messages (printf "storeAuth.kafka is off, so Secret %s-kafka-auth (the brokers' inter-broker and controller passwords) is not generated: set kafka.sasl.existingSecret to a Secret of your own with its keys, or turn storeAuth.kafka on" .Release.Name) -}}
{{- end -}}
{{- if ne $protocol "PLAINTEXT" -}}
{{- $messages = append $messages (printf "storeAuth.kafka is off, so the services connect without SASL: kafka.listeners.client.protocol must be PLAINTEXT, got %s" $protocol) -}}
{{- end -}}
{{- if $authorizer -}}
{{- $messages = append $messages "storeAuth.kafka is off, so no ACL names the services: drop kafka.overrideConfiguration[\"authorizer.class.name\"] (set it to null)" -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and (include "newsfeed.storeAuth.on" (dict "store" "cassandra" "context" .)) .Values.cassandra.enabled (eq (toString (default dict .Values.cassandra.cluster).auth) "false") -}}
{{- $messages = append $messages "storeAuth.cassandra needs authentication in Cassandra: cassandra.cluster.auth must not be false" -}}
{{- end -}}
{{- if and (include "newsfeed.storeAuth.on" (dict "store" "solr" "context" .)) (not .Values.solr.enabled) (not .Values.storeAuth.solr.adminSecret) -}}
{{- $messages = append $messages "storeAuth.solr with an external Solr needs storeAuth.solr.adminSecret (keys username, password of a Solr admin), or storeAuth.solr.enabled=false" -}}
{{- end -}}
{{- $solrSecurity := default dict (default dict .Values.solr.cloud).solrSecurity -}}
{{- if and (include "newsfeed.storeAuth.on" (dict "store" "solr" "context" .)) .Values.solr.enabled $solrSecurity.basicAuthSecret (not .Values.storeAuth.solr.adminSecret) -}}
{{- $messages = append $messages (printf "solr.cloud.solrSecurity.basicAuthSecret %s replaces the Solr Operator's bootstrapped admin, whose Secret the schema Job reads by default: set storeAuth.solr.adminSecret (keys username, password of a Solr admin)" (toString $solrSecurity.basicAuthSecret)) -}}
{{- end -}}
{{- if and .Values.redis.enabled (include "newsfeed.store.used" (dict "store" "redis" "context" .)) -}}
{{- $auth := .Values.redis.auth -}}
{{- if or (ne (tpl (toString $auth.existingSecret) $) (include "newsfeed.redis.authSecretName" $)) (ne (toString $auth.existingSecretPasswordKey) "redis-password") -}}
{{- $messages = append $messages (printf "redis.auth.existingSecret and existingSecretPasswordKey must stay %s and redis-password: that Secret, generated by this chart, also holds the services' REDIS_URL with the same password (got %s, %s)" (include "newsfeed.redis.authSecretName" $) (tpl (toString $auth.existingSecret) $) (toString $auth.existingSecretPasswordKey)) -}}
{{- end -}}
{{- end -}}
{{- toYaml $messages -}}
{{- end -}}
