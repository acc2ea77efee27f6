package newsfeed.common.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingResult;

import java.util.List;

/**
 * Keeps the kubelet's probes and Prometheus' scrapes out of the traces: a request to /health/* or /metrics that
 * starts a trace is dropped; everything else is decided by the wrapped sampler.
 */
final class ProbeFilteringSampler implements Sampler {
  private static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");
  private final Sampler delegate;

  ProbeFilteringSampler(Sampler delegate) {
    this.delegate = delegate;
  }

  static boolean isProbe(String path) {
    return path != null && (path.startsWith("/health/") || path.equals("/metrics"));
  }

  @Override
  public SamplingResult shouldSample(Context parent, String traceId, String name, SpanKind kind,
                                     Attributes attributes, List<LinkData> links) {
    if (kind == SpanKind.SERVER && !Span.fromContext(parent).getSpanContext().isValid()
        && isProbe(attributes.get(URL_PATH))) {
      return SamplingResult.drop();
    }
    return delegate.shouldSample(parent, traceId, name, kind, attributes, links);
  }

  @Override
  public String getDescription() {
    return "ProbeFiltering{" + delegate.getDescription() + "}";
  }
}
