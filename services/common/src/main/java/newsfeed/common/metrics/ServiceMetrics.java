package newsfeed.common.metrics;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.tracer.common.SpanContext;

import java.time.Duration;

/**
 * The Prometheus registry of a service: common tag `service`, and every `newsfeed.*` timer a histogram with the
 * buckets of docs/contracts.md so quantiles of all services are comparable. With an exemplar source (tracing on),
 * histogram buckets and counters carry the trace id of a sampled recording, shown when scraped as OpenMetrics.
 */
public final class ServiceMetrics {
  static final double[] BUCKET_SECONDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

  private ServiceMetrics() {
  }

  public static PrometheusMeterRegistry create(String service) {
    return create(service, null);
  }

  /** {@code exemplars}: where exemplars' trace ids come from; null: no exemplars. */
  public static PrometheusMeterRegistry create(String service, SpanContext exemplars) {
    PrometheusMeterRegistry registry =
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, new PrometheusRegistry(), Clock.SYSTEM, exemplars);
    registry.config().commonTags("service", service);
    registry.config().meterFilter(new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
        if (id.getType() != Meter.Type.TIMER || !id.getName().startsWith("newsfeed.")) {
          return config;
        }
        double[] nanos = new double[BUCKET_SECONDS.length];
        for (int i = 0; i < nanos.length; i++) {
          nanos[i] = BUCKET_SECONDS[i] * 1e9;
        }
        return DistributionStatisticConfig.builder()
            .percentilesHistogram(false)
            .serviceLevelObjectives(nanos)
            .expiry(Duration.ofMinutes(2))
            .build()
            .merge(config);
      }
    });
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    return registry;
  }
}
