package newsfeed.common.metrics;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import newsfeed.common.tracing.TraceExemplars;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Latency exemplars: a sampled span's trace id on the bucket its recording fell in, in OpenMetrics only. */
class ServiceMetricsExemplarsTest {
  private static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

  private final SdkTracerProvider sampled = SdkTracerProvider.builder().setSampler(Sampler.alwaysOn()).build();
  private final SdkTracerProvider unsampled = SdkTracerProvider.builder().setSampler(Sampler.alwaysOff()).build();

  @AfterEach
  void close() {
    sampled.close();
    unsampled.close();
  }

  @Test
  void aSampledRecordingLeavesItsTraceIdOnItsBucket() {
    PrometheusMeterRegistry registry = ServiceMetrics.create("test", new TraceExemplars());
    String traceId = recordIn(sampled.get("test"), registry, 7);
    String scrape = registry.scrape(OPENMETRICS);
    // 7 ms falls in the 10 ms bucket: its exemplar names the trace and the 0.007 s value
    assertTrue(scrape.lines().anyMatch(l -> l.startsWith("newsfeed_operation_seconds_bucket{")
        && l.contains("le=\"0.01\"") && l.contains("# {span_id=") && l.contains("trace_id=\"" + traceId + "\"}")
        && l.contains(" 0.007")),
        () -> "no exemplar of trace " + traceId + " on the 0.01 bucket:\n" + scrape);
    assertFalse(registry.scrape().contains(traceId), "the classic text format has no exemplars");
  }

  @Test
  void anUnsampledSpanOrNoTracingLeavesNone() {
    PrometheusMeterRegistry withSource = ServiceMetrics.create("test", new TraceExemplars());
    recordIn(unsampled.get("test"), withSource, 7);
    assertFalse(withSource.scrape(OPENMETRICS).contains("trace_id="), "an unsampled span names no trace");

    PrometheusMeterRegistry untraced = ServiceMetrics.create("test");
    recordIn(sampled.get("test"), untraced, 7);
    assertFalse(untraced.scrape(OPENMETRICS).contains("trace_id="), "tracing off: no exemplars at all");
  }

  private static String recordIn(Tracer tracer, PrometheusMeterRegistry registry, long millis) {
    Span span = tracer.spanBuilder("work").startSpan();
    try (Scope ignored = span.makeCurrent()) {
      Timer.builder("newsfeed.operation").tag("entity", "thing").tag("operation", "load").tag("outcome", "success")
          .register(registry).record(millis, TimeUnit.MILLISECONDS);
    } finally {
      span.end();
    }
    return span.getSpanContext().getTraceId();
  }
}
