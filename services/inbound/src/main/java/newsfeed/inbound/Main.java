package newsfeed.inbound;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import newsfeed.inbound.http.ServiceMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/** Starts the inbound service; SIGTERM undeploys it gracefully (drain HTTP, commit, close) before exiting. */
public final class Main {
  private static final Logger LOG = LoggerFactory.getLogger(Main.class);

  private Main() {
  }

  public static void main(String[] args) throws Exception {
    InboundConfig config;
    try {
      config = InboundConfig.fromEnv(System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("inbound: bad configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    PrometheusMeterRegistry registry = ServiceMetrics.create("inbound");
    Vertx vertx = Vertx.vertx();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      LOG.info("shutting down");
      try {
        vertx.close().await(config.shutdownGrace().toSeconds() + 10, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("shutdown did not finish cleanly: {}", e.toString());
      }
    }, "shutdown"));
    try {
      vertx.deployVerticle(new InboundVerticle(config, registry)).await();
      LOG.info("inbound listening on {}:{}", config.httpHost(), config.httpPort());
    } catch (Exception e) {
      LOG.error("inbound failed to start", e);
      System.exit(1);
    }
  }
}
