# The local Jaeger's configuration (Jaeger v2 is an OpenTelemetry Collector): an OTLP/HTTP receiver, in-memory
# storage and the query API, every port on 127.0.0.1 and shifted by the run's port offset.
# shellcheck shell=bash

# jaeger_config OTLP_PORT QUERY_PORT QUERY_GRPC_PORT MAX_TRACES
jaeger_config() {
  cat <<YAML
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    resource:
      service.name: jaeger
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memory:
        memory:
          max_traces: $4
  jaeger_query:
    storage:
      traces: memory
    http:
      endpoint: 127.0.0.1:$2
    grpc:
      endpoint: 127.0.0.1:$3
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:$1
processors:
  batch:
exporters:
  jaeger_storage_exporter:
    trace_storage: memory
YAML
}
