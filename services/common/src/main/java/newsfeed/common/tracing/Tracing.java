package newsfeed.common.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.ContextInternal;
import io.vertx.tracing.opentelemetry.OpenTelemetryOptions;
import io.vertx.tracing.opentelemetry.OpenTelemetryTracingFactory;
import io.vertx.tracing.opentelemetry.VertxContextStorageProvider.VertxContextStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A service's traces. With tracing on, Vert.x's own OpenTelemetry tracer makes the spans of HTTP server and client,
 * Kafka produce (its context travels in the record's headers), PostgreSQL, Redis and Cassandra calls, each a child
 * of the span active in the calling Vert.x context; the consumers start theirs with {@link RecordTracing#consume} and
 * summarize many store calls as one span with {@link #summarized}. With tracing off (the default) every helper only
 * runs the work given to it.
 */
public final class Tracing {
  private static final Logger LOG = LoggerFactory.getLogger(Tracing.class);
  private static final String SCOPE = "newsfeed";
  private static final AttributeKey<String> HTTP_ROUTE = AttributeKey.stringKey("http.route");

  private static volatile Tracing active = new Tracing(null, OpenTelemetry.noop());

  private final OpenTelemetrySdk sdk;
  private final OpenTelemetry openTelemetry;
  private final Tracer tracer;

  private Tracing(OpenTelemetrySdk sdk, OpenTelemetry openTelemetry) {
    this.sdk = sdk;
    this.openTelemetry = openTelemetry;
    this.tracer = openTelemetry.getTracer(SCOPE);
  }

  /**
   * Starts tracing as configured; a configuration that cannot be used is logged once and the service runs untraced.
   */
  public static Tracing start(String service, TracingConfig.Parsed parsed) {
    if (parsed.problem() != null) {
      LOG.warn("{}: tracing off: {}", service, parsed.problem());
      return active;
    }
    TracingConfig config = parsed.config();
    if (!config.enabled()) {
      return active;
    }
    try {
      OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder()
          .setEndpoint(config.tracesUrl()).setTimeout(Duration.ofSeconds(5)).build();
      SdkTracerProvider provider = SdkTracerProvider.builder()
          .setResource(Resource.getDefault().merge(Resource.create(
              Attributes.of(AttributeKey.stringKey("service.name"), service))))
          .setSampler(new ProbeFilteringSampler(Sampler.parentBased(Sampler.traceIdRatioBased(config.sampleRatio()))))
          .addSpanProcessor(BatchSpanProcessor.builder(exporter).build())
          .build();
      OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(provider)
          .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
      active = new Tracing(sdk, sdk);
      LOG.info("{}: tracing to {} (sample ratio {})", service, config.tracesUrl(), config.sampleRatio());
    } catch (RuntimeException e) {
      LOG.warn("{}: tracing off: {}", service, e.toString());
    }
    return active;
  }

  public boolean enabled() {
    return sdk != null;
  }

  /**
   * What the metrics registry reads a latency exemplar's trace from ({@code ServiceMetrics.create}); null with tracing
   * off, so an untraced service exposes no exemplars at all.
   */
  public TraceExemplars exemplars() {
    return enabled() ? new TraceExemplars() : null;
  }

  /** A Vert.x instance that traces through this SDK when tracing is on. */
  public Vertx vertx(VertxOptions options) {
    if (!enabled()) {
      return Vertx.vertx(options);
    }
    return Vertx.builder().with(options.setTracingOptions(new OpenTelemetryOptions()))
        .withTracer(new OpenTelemetryTracingFactory(openTelemetry)).build();
  }

  /** Sends the spans still buffered (after Vert.x closed, so the last requests' spans are in). */
  public void close() {
    if (sdk != null) {
      sdk.getSdkTracerProvider().shutdown().join(5, TimeUnit.SECONDS);
    }
  }

  static Tracing active() {
    return active;
  }

  Tracer tracer() {
    return tracer;
  }

  OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  /**
   * Runs {@code work} with {@code span} active in a fresh copy of the current event loop's context, so the Vert.x
   * clients it calls make child spans of it and no other work shares them; ends the span with the work's outcome.
   */
  static <T> Future<T> within(Context parent, Span span, Supplier<Future<T>> work) {
    return within(parent.with(span), work).andThen(ar -> end(span, ar.cause()));
  }

  /**
   * Runs {@code work} with {@code active} as the current trace context in a fresh copy of the current event loop's
   * context. With an unsampled context this makes no span, yet the clients pass "not sampled" on, so the services
   * called do not start traces of their own for it.
   */
  static <T> Future<T> within(Context active, Supplier<Future<T>> work) {
    ContextInternal current = ContextInternal.current();
    if (current == null) {
      return work.get();
    }
    ContextInternal copy = current.unwrap().duplicate();
    VertxContextStorage.INSTANCE.attach(copy, active);
    return runOn(copy, copy, work);
  }

  /** Runs {@code work} outside any span (on the event loop's own context): the Vert.x clients it calls trace nothing. */
  static <T> Future<T> untraced(Supplier<Future<T>> work) {
    ContextInternal current = ContextInternal.current();
    if (current == null || !current.isDuplicate()) {
      return work.get();
    }
    return runOn(current.unwrap(), current, work);
  }

  /** Runs {@code work} now with {@code where} as the current context; its outcome completes on {@code answerOn}. */
  private static <T> Future<T> runOn(ContextInternal where, ContextInternal answerOn, Supplier<Future<T>> work) {
    Promise<T> done = answerOn.promise();
    where.dispatch(() -> {
      try {
        work.get().onComplete(done);
      } catch (RuntimeException e) {
        done.fail(e);
      }
    });
    return done.future();
  }

  static void end(Span span, Throwable failure) {
    if (failure != null) {
      span.recordException(failure);
      span.setStatus(StatusCode.ERROR, String.valueOf(failure.getMessage()));
    }
    span.end();
  }

  /** Names the active server span after its route template ("POST /participant/:id/outbound"), as OTel's HTTP spans. */
  public static void nameServerSpan(String method, String routeTemplate) {
    if (active.enabled()) {
      Span span = Span.current();
      if (span.isRecording()) {
        span.updateName(method + " " + routeTemplate);
        span.setAttribute(HTTP_ROUTE, routeTemplate);
      }
    }
  }

  /**
   * The span of many calls of one kind (e.g. the rows of a fan-out): a child of the active span named {@code name}
   * with {@code attributes}, while the calls themselves run untraced, so a post to 100,000 friends is one span and
   * not 10,000. Without an active sampled span the work just runs.
   */
  public static <T> Future<T> summarized(String name, Attributes attributes, Supplier<Future<T>> work) {
    Tracing t = active;
    if (!t.enabled()) {
      return work.get();
    }
    Context parent = Context.current();
    if (parent == null || !Span.fromContext(parent).getSpanContext().isSampled()) {
      return untraced(work);
    }
    Span span = t.tracer.spanBuilder(name).setParent(parent)
        .setSpanKind(io.opentelemetry.api.trace.SpanKind.CLIENT).setAllAttributes(attributes).startSpan();
    return untraced(work).andThen(ar -> end(span, ar.cause()));
  }
}
