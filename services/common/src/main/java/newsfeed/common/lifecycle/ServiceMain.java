package newsfeed.common.lifecycle;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Deployable;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import newsfeed.common.config.Env;
import newsfeed.common.metrics.ServiceMetrics;
import newsfeed.common.tracing.Tracing;
import newsfeed.common.tracing.TracingConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The start of every service: parse the environment once (exit 2 with the variable's name when it is bad),
 * create the metrics registry, deploy the verticle, and on SIGTERM undeploy it gracefully (the verticle drains
 * HTTP, lets consumers commit, closes its stores) before the JVM exits. NATIVE_TRANSPORT=true makes Vert.x run
 * Netty's native transport where there is one (epoll on Linux); the default is NIO, which measured the same or
 * slightly cheaper per request here (docs/benchmarks/2026-11-23.md). TRACING_* ({@link TracingConfig}) turns on
 * traces and the latency histograms' trace exemplars; a bad tracing setting is logged and the service runs untraced.
 */
public final class ServiceMain {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceMain.class);

  private ServiceMain() {
  }

  public static <C> void run(String service, Function<Map<String, String>, C> parseConfig,
                             Function<C, Duration> shutdownGrace,
                             BiFunction<C, PrometheusMeterRegistry, Deployable> verticle) {
    C config;
    boolean nativeTransport;
    try {
      config = parseConfig.apply(System.getenv());
      nativeTransport = new Env(System.getenv()).bool("NATIVE_TRANSPORT", false);
    } catch (IllegalArgumentException e) {
      System.err.println(service + ": bad configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    Tracing tracing = Tracing.start(service, TracingConfig.parse(System.getenv()));
    PrometheusMeterRegistry registry = ServiceMetrics.create(service, tracing.exemplars());
    Vertx vertx = tracing.vertx(new VertxOptions().setPreferNativeTransport(nativeTransport));
    if (vertx.isNativeTransportEnabled()) {
      LOG.info("{}: native transport", service);
    } else if (nativeTransport) {
      LOG.warn("{}: NATIVE_TRANSPORT but no native transport here, running NIO: {}", service,
          vertx.unavailableNativeTransportCause());
    }
    long graceSeconds = shutdownGrace.apply(config).toSeconds();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      LOG.info("{} shutting down", service);
      try {
        vertx.close().await(graceSeconds + 10, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("shutdown did not finish cleanly: {}", e.toString());
      }
      tracing.close();
    }, "shutdown"));
    try {
      vertx.deployVerticle(verticle.apply(config, registry)).await();
      LOG.info("{} started", service);
    } catch (Exception e) {
      LOG.error("{} failed to start", service, e);
      System.exit(1);
    }
  }
}
