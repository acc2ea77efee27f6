package newsfeed.search;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import newsfeed.search.http.ServiceMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/** Starts the search service; SIGTERM undeploys it gracefully (drain HTTP, commit, close) before exiting. */
public final class Main {
  private static final Logger LOG = LoggerFactory.getLogger(Main.class);

  private Main() {
  }

  public static void main(String[] args) throws Exception {
    SearchConfig config;
    try {
      config = SearchConfig.fromEnv(System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("search: bad configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    PrometheusMeterRegistry registry = ServiceMetrics.create("search");
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
      vertx.deployVerticle(new SearchVerticle(config, registry)).await();
      LOG.info("search listening on {}:{}", config.httpHost(), config.httpPort());
    } catch (Exception e) {
      LOG.error("search failed to start", e);
      System.exit(1);
    }
  }
}
