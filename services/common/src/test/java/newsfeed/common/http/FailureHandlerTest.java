package newsfeed.common.http;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every way a request fails, answered by the one FailureHandler on a router of HttpBootstrap. */
class FailureHandlerTest {
  private static final ConcurrentLinkedQueue<ILoggingEvent> LOGGED = new ConcurrentLinkedQueue<>();
  private static final AppenderBase<ILoggingEvent> APPENDER = new AppenderBase<>() {
    @Override
    protected void append(ILoggingEvent event) {
      LOGGED.add(event);
    }
  };

  private static Vertx vertx;
  private static PrometheusMeterRegistry registry;
  private static HttpServer server;
  private static WebClient client;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Router router = HttpBootstrap.router(vertx, registry, 0, List.of());
    router.get("/thing/:id").handler(ctx -> {
      throw new ApiError(404, "thing_not_found", "no thing with id " + ctx.pathParam("id"));
    }).failureHandler(FailureHandler::handle);
    router.get("/async").handler(ctx -> Future.<Void>failedFuture(new ApiError(400, "invalid_limit", "limit is bad"))
        .onFailure(ctx::fail)).failureHandler(FailureHandler::handle);
    router.get("/store").handler(ctx -> Future.<Void>failedFuture(new IllegalStateException("connection refused"))
        .recover(StoreFailure.as("teststore")).onFailure(ctx::fail)).failureHandler(FailureHandler::handle);
    router.get("/store-bug").handler(ctx -> Future.<Void>failedFuture(new NullPointerException("a bug"))
        .recover(StoreFailure.as("teststore")).onFailure(ctx::fail)).failureHandler(FailureHandler::handle);
    router.get("/bug").handler(ctx -> {
      throw new IllegalStateException("a bug");
    }).failureHandler(FailureHandler::handle);
    router.get("/sent").handler(ctx -> {
      ctx.response().setStatusCode(200).end("done");
      ctx.fail(new IllegalStateException("failed after the answer"));
    }).failureHandler(FailureHandler::handle);
    router.get("/challenge").handler(ctx -> {
      throw new ApiError(401, "missing_token", "a token is needed").withHeader("WWW-Authenticate", "Bearer");
    }).failureHandler(FailureHandler::handle);
    router.get("/teapot").handler(ctx -> ctx.fail(418)).failureHandler(FailureHandler::handle);
    router.post("/body").handler(RawBody.limit(16)).handler(ctx -> ctx.end("read " + RawBody.of(ctx)))
        .failureHandler(FailureHandler::handle);
    // a route without a failure handler of its own: the router's error handler answers the same way
    router.get("/plain").handler(ctx -> {
      throw new ApiError(409, "conflict", "already there");
    });
    server = HttpBootstrap.serve(vertx, new HttpServerOptions().setHost("127.0.0.1").setPort(0), router).await();
    client = WebClient.create(vertx);
    Logger log = (Logger) LoggerFactory.getLogger(FailureHandler.class);
    APPENDER.setContext(log.getLoggerContext());
    APPENDER.start();
    log.addAppender(APPENDER);
  }

  @AfterAll
  static void stop() {
    ((Logger) LoggerFactory.getLogger(FailureHandler.class)).detachAppender(APPENDER);
    vertx.close().await();
  }

  @BeforeEach
  void forgetLogs() {
    LOGGED.clear();
  }

  @Test
  void anApiErrorThrownWhileValidatingIsAnsweredWithItsStatusAndBody() {
    HttpResponse<Buffer> resp = get("/thing/7");
    assertError(resp, 404, "thing_not_found", "no thing with id 7");
    assertTrue(LOGGED.isEmpty(), "an answer to the client's request is not logged");
  }

  @Test
  void theHeadersOfAnApiErrorAreSentWithIt() {
    HttpResponse<Buffer> resp = get("/challenge");
    assertError(resp, 401, "missing_token", "a token is needed");
    assertEquals("Bearer", resp.getHeader("WWW-Authenticate"));
    assertNull(get("/thing/7").getHeader("WWW-Authenticate"));
  }

  @Test
  void anApiErrorOfAFailedFutureIsAnsweredTheSameWay() {
    assertError(get("/async"), 400, "invalid_limit", "limit is bad");
  }

  @Test
  void aStoreFailureIsAJson503NamingTheStoreAndIsLogged() {
    assertError(get("/store"), 503, "store_unavailable", "teststore is unavailable");
    ILoggingEvent event = LOGGED.stream().filter(e -> e.getLevel() == Level.WARN).findFirst().orElseThrow();
    assertTrue(event.getFormattedMessage().contains("teststore failed on GET /store, answering 503"),
        event.getFormattedMessage());
    assertTrue(event.getFormattedMessage().contains("connection refused"), event.getFormattedMessage());
  }

  @Test
  void anythingElseIsALogged500WithoutDetails() {
    HttpResponse<Buffer> resp = get("/bug");
    assertError(resp, 500, "internal_error", "internal error");
    assertFalse(resp.bodyAsString().contains("a bug"), resp.bodyAsString());
    ILoggingEvent event = LOGGED.stream().filter(e -> e.getLevel() == Level.ERROR).findFirst().orElseThrow();
    assertEquals("unhandled failure on GET /bug", event.getFormattedMessage());
    assertEquals("a bug", event.getThrowableProxy().getMessage());
  }

  @Test
  void aBugOnTheWayToAStoreIsA500NotAStoreOutage() {
    assertError(get("/store-bug"), 500, "internal_error", "internal error");
    assertTrue(LOGGED.stream().anyMatch(e -> e.getLevel() == Level.ERROR), "logged with its stack trace");
  }

  @Test
  void aResponseAlreadySentIsLeftAsItIs() throws InterruptedException {
    HttpResponse<Buffer> resp = get("/sent");
    assertEquals(200, resp.statusCode());
    assertEquals("done", resp.bodyAsString());
    // the context fails after the answer went out: the client may have it before the failure is handled
    for (int i = 0; i < 50 && LOGGED.stream().noneMatch(e -> e.getLevel() == Level.ERROR); i++) {
      Thread.sleep(20);
    }
    assertTrue(LOGGED.stream().anyMatch(e -> e.getLevel() == Level.ERROR), "the failure is still logged");
  }

  @Test
  void failuresVertxRaisesByStatusAnswerInTheSameShape() {
    assertError(get("/nothing/here"), 404, "not_found", "no such resource");
    HttpResponse<Buffer> notAllowed = client.post(server.actualPort(), "127.0.0.1", "/thing/7").send().await();
    assertError(notAllowed, 405, "method_not_allowed", "method not allowed on this resource");
    assertEquals("GET", notAllowed.getHeader("Allow"), "a 405 names the methods the path takes");
    assertError(client.post(server.actualPort(), "127.0.0.1", "/body")
        .sendBuffer(Buffer.buffer("a body longer than sixteen bytes")).await(), 413, "body_too_large",
        "request body is too large");
    assertEquals("read 50% off", client.post(server.actualPort(), "127.0.0.1", "/body")
        .putHeader("Content-Type", "application/x-www-form-urlencoded").sendBuffer(Buffer.buffer("50% off"))
        .await().bodyAsString(), "the bytes as sent: no form decoder on the way");
    assertError(client.post(server.actualPort(), "127.0.0.1", "/body").putHeader("Expect", "200-ok")
        .sendBuffer(Buffer.buffer("short")).await(), 417, "expectation_failed",
        "the only expectation taken is Expect: 100-continue");
  }

  @Test
  void requestsTheHttpDecoderRefusesAnswerInTheSameShape() {
    assertError(get("/thing/" + "7".repeat(5_000)), 414, "uri_too_long", "request URI is too long");
    assertError(client.get(server.actualPort(), "127.0.0.1", "/thing/7").putHeader("X-Big", "x".repeat(10_000))
        .send().await(), 431, "headers_too_large", "request headers are too large");
  }

  @Test
  void aQueryStringThatIsNotPercentEncodedUtf8IsA400BeforeAnyHandler() {
    for (String query : new String[] {"x=%FF", "x=%C3%28", "x=%zz", "x=%"}) {
      assertError(get("/thing/7?" + query), 400, "invalid_query", "the query string must be percent-encoded UTF-8");
    }
    assertError(get("/thing/7?x=caf%C3%A9"), 404, "thing_not_found", "no thing with id 7");
  }

  @Test
  void aStatusTheApiHasNoAnswerForIsLeftToVertx() {
    HttpResponse<Buffer> resp = get("/teapot");
    assertEquals(418, resp.statusCode());
    assertNotEquals("application/json", resp.getHeader("Content-Type"));
  }

  @Test
  void aRouteWithoutItsOwnFailureHandlerIsAnsweredByTheRoutersErrorHandler() {
    assertError(get("/plain"), 409, "conflict", "already there");
  }

  @Test
  void aFailedRequestIsTimedUnderItsRouteTemplate() throws InterruptedException {
    get("/thing/8");
    String series = "newsfeed_http_server_requests_seconds_count{method=\"GET\",route=\"/thing/:id\",status=\"404\"}";
    // recorded when the body has been written, which may be a moment after the client read it
    for (int i = 0; i < 50 && !registry.scrape().contains(series); i++) {
      Thread.sleep(20);
    }
    assertTrue(registry.scrape().contains(series), registry.scrape());
  }

  @Test
  void theStoreFailureWrapperPassesApiErrorsThrough() {
    ApiError notFound = ApiError.participantNotFound(9);
    assertEquals(notFound, StoreFailure.wrap(notFound, "postgresql"));
    StoreFailure store = new StoreFailure("kafka", new RuntimeException("down"));
    assertEquals(store, StoreFailure.wrap(store, "cassandra"), "the first store to fail is the one named");
    Throwable wrapped = StoreFailure.wrap(new RuntimeException("down"), "solr");
    assertEquals("solr is unavailable", wrapped.getMessage());
    assertTrue(StoreFailure.wrap(new IllegalStateException("pool closed"), "redis") instanceof StoreFailure);
    NullPointerException bug = new NullPointerException();
    assertEquals(bug, StoreFailure.wrap(bug, "cassandra"), "a bug is no store's outage");
    assertTrue(StoreFailure.wrap(new AssertionError(), "kafka") instanceof AssertionError);
    assertEquals("participant_not_found", notFound.code());
    assertEquals("no participant with id 9", notFound.getMessage());
    assertNull(FailureHandler.forStatus(418));
  }

  private static HttpResponse<Buffer> get(String path) {
    return client.get(server.actualPort(), "127.0.0.1", path).send().await();
  }

  private static void assertError(HttpResponse<Buffer> resp, int status, String code, String message) {
    assertEquals(status, resp.statusCode(), resp.bodyAsString());
    assertEquals("application/json", resp.getHeader("Content-Type"));
    assertEquals(new JsonObject().put("error", code).put("message", message).put("status", status),
        resp.bodyAsJsonObject());
  }
}
