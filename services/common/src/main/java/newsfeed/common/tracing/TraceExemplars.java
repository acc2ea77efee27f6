package newsfeed.common.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;

/**
 * Where the Prometheus registry's exemplar sampler finds the trace of a measurement: the span current when a timer
 * records (or the one {@link #pinned} for it), if that span is sampled, so every exemplar names a trace that was
 * exported. A latency bucket's exemplar then links a slow point of a panel to the request that made it.
 */
public final class TraceExemplars implements io.prometheus.metrics.tracer.common.SpanContext {
  // the span a recording belongs to when it runs after that span stopped being current (a request's timer records
  // once its response is written); only ever set around one synchronous record() call
  private static final ThreadLocal<SpanContext> PINNED = new ThreadLocal<>();

  public TraceExemplars() {
  }

  /** The span context current now (invalid when there is none), to {@link #pinned pin} to a later recording. */
  public static SpanContext current() {
    return Tracing.active().enabled() ? Span.current().getSpanContext() : SpanContext.getInvalid();
  }

  /** Runs {@code record} (a synchronous metric recording) with {@code span} as the span its exemplar names. */
  public static void pinned(SpanContext span, Runnable record) {
    if (!Tracing.active().enabled()) {
      record.run();
      return;
    }
    SpanContext before = PINNED.get();
    PINNED.set(span);
    try {
      record.run();
    } finally {
      if (before == null) {
        PINNED.remove();
      } else {
        PINNED.set(before);
      }
    }
  }

  private static SpanContext span() {
    SpanContext pinned = PINNED.get();
    return pinned != null ? pinned : Span.current().getSpanContext();
  }

  @Override
  public String getCurrentTraceId() {
    SpanContext s = span();
    return s.isValid() ? s.getTraceId() : null;
  }

  @Override
  public String getCurrentSpanId() {
    SpanContext s = span();
    return s.isValid() ? s.getSpanId() : null;
  }

  @Override
  public boolean isCurrentSpanSampled() {
    SpanContext s = span();
    return s.isValid() && s.isSampled();
  }

  /** Nothing to mark: the sampler takes only sampled spans, and those are exported whole. */
  @Override
  public void markCurrentSpanAsExemplar() {
  }
}
