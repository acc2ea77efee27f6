package newsfeed.common.http;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.handler.BodyHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static newsfeed.common.testing.Waiting.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** HTTP_MAX_IN_FLIGHT on a router of HttpBootstrap: what is refused, what is not, and when a slot is free again. */
class LoadSheddingTest {
  private Vertx vertx;
  private PrometheusMeterRegistry registry;
  private HttpServer server;
  private WebClient client;
  /** The held requests' answers: each held request waits until its promise is completed. */
  private final Queue<Promise<Void>> held = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    client = WebClient.create(vertx, new io.vertx.ext.web.client.WebClientOptions(),
        new PoolOptions().setHttp1MaxSize(100));
  }

  private void serve(int maxInFlight) {
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Router router = HttpBootstrap.router(vertx, registry, maxInFlight, List.of());
    router.get("/held").handler(ctx -> {
      Promise<Void> answer = Promise.promise();
      held.add(answer);
      answer.future().onComplete(ar -> ctx.end("done"));
    }).failureHandler(FailureHandler::handle);
    router.post("/body").handler(BodyHandler.create(false)).handler(ctx -> ctx.end("read " + ctx.body().length()))
        .failureHandler(FailureHandler::handle);
    server = HttpBootstrap.serve(vertx, new HttpServerOptions().setHost("127.0.0.1").setPort(0), router).await();
  }

  @AfterEach
  void stop() {
    held.forEach(Promise::tryComplete);
    vertx.close().await();
  }

  @Test
  void beyondTheBoundARequestIsRefusedAtOnceAndTheHealthEndpointsStillAnswer() throws Exception {
    serve(2);
    List<Future<HttpResponse<Buffer>>> holding = List.of(get("/held"), get("/held"));
    eventually(held::size, n -> n == 2);
    HttpResponse<Buffer> refused = get("/held").await();
    assertEquals(503, refused.statusCode(), refused.bodyAsString());
    assertEquals("application/json", refused.getHeader("Content-Type"));
    assertEquals("1", refused.getHeader("Retry-After"));
    assertEquals("overloaded", refused.bodyAsJsonObject().getString("error"));
    assertEquals(2, held.size(), "the refused request never reached its handler");
    // a body is not read for a refused request, and the connection still serves the next one
    HttpResponse<Buffer> refusedBody = client.post(server.actualPort(), "127.0.0.1", "/body")
        .sendBuffer(Buffer.buffer(new byte[32_768])).await();
    assertEquals(503, refusedBody.statusCode());
    assertEquals(200, get("/health/live").await().statusCode());
    assertEquals(200, get("/metrics").await().statusCode());
    assertEquals(2.0, value("newsfeed_http_server_in_flight"));
    assertEquals(2.0, value("newsfeed_http_server_shed_total"));

    held.poll().complete();
    assertEquals(200, holding.get(0).await().statusCode());
    eventually(() -> value("newsfeed_http_server_in_flight"), n -> n == 1.0);
    HttpResponse<Buffer> taken = client.post(server.actualPort(), "127.0.0.1", "/body")
        .sendBuffer(Buffer.buffer(new byte[32_768])).await();
    assertEquals("read 32768", taken.bodyAsString(), "a slot is free again");
  }

  @Test
  void aClientThatHangsUpFreesItsSlot() throws Exception {
    serve(1);
    HttpClient raw = vertx.createHttpClient();
    HttpClientRequest request = raw.request(new RequestOptions().setMethod(HttpMethod.GET)
        .setHost("127.0.0.1").setPort(server.actualPort()).setURI("/held")).await();
    request.send();
    eventually(held::size, n -> n == 1);
    assertEquals(503, get("/held").await().statusCode());
    request.connection().close().await(5, TimeUnit.SECONDS);
    eventually(() -> value("newsfeed_http_server_in_flight"), n -> n == 0.0);
    Future<HttpResponse<Buffer>> next = get("/held");
    eventually(held::size, n -> n == 2);
    held.forEach(Promise::tryComplete);
    assertEquals(200, next.await().statusCode());
  }

  @Test
  void zeroTakesEveryRequest() throws Exception {
    serve(0);
    List<Future<HttpResponse<Buffer>>> holding = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      holding.add(get("/held"));
    }
    eventually(held::size, n -> n == 50);
    held.forEach(Promise::tryComplete);
    for (Future<HttpResponse<Buffer>> f : holding) {
      assertEquals(200, f.await().statusCode());
    }
    assertEquals(0.0, value("newsfeed_http_server_shed_total"));
    assertEquals(0.0, value("newsfeed_http_server_max_in_flight"));
  }

  private Future<HttpResponse<Buffer>> get(String path) {
    return client.get(server.actualPort(), "127.0.0.1", path).send();
  }

  /** A series of the registry's scrape by name (it has no labels here). */
  private double value(String name) {
    return registry.scrape().lines().filter(l -> l.startsWith(name + " ")).mapToDouble(
        l -> Double.parseDouble(l.substring(name.length() + 1))).findFirst().orElse(Double.NaN);
  }
}
