package newsfeed.common.kafka;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import newsfeed.common.http.HttpBootstrap;

import java.time.Duration;

/**
 * The HTTP server and the event consumer of a consuming service (inbound, search), started and stopped in one order:
 * the consumer starts once the server listens; on stop the server drains its requests, then the consumer finishes
 * and commits its batch.
 */
public final class ConsumingServer {
  private final EventConsumer consumer;
  private HttpServer server;

  public ConsumingServer(EventConsumer consumer) {
    this.consumer = consumer;
  }

  public Future<Void> start(Vertx vertx, String host, int port, Router router) {
    return HttpBootstrap.serve(vertx, new HttpServerOptions().setHost(host).setPort(port), router).compose(s -> {
      server = s;
      return consumer.start();
    });
  }

  /** Each step bounded by {@code grace}. */
  public Future<Void> stop(Duration grace) {
    return HttpBootstrap.drain(server, grace).transform(ar -> consumer.stop(grace));
  }
}
