package newsfeed.common.auth;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.handler.BodyHandler;
import newsfeed.common.config.Env;
import newsfeed.common.http.FailureHandler;
import newsfeed.common.http.HttpBootstrap;
import newsfeed.common.testing.TestTokens;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The write guards on a real router, as the services mount them: the answers a client gets. */
class WriteAuthTest {
  private static Vertx vertx;
  private static TestTokens issuer;
  private static HttpServer guarded;
  private static HttpServer open;
  private static WebClient client;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    issuer = TestTokens.rsa();
    guarded = serve(WriteAuth.create(vertx, AuthConfig.fromEnv(new Env(issuer.env()))));
    open = serve(WriteAuth.create(vertx, AuthConfig.OFF));
    client = WebClient.create(vertx);
  }

  private static HttpServer serve(WriteAuth auth) {
    Router router = HttpBootstrap.router(vertx, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), 0, List.of());
    BodyHandler body = BodyHandler.create(false).setBodyLimit(1024);
    router.post("/participant").handler(body).handler(auth.anyCaller()).handler(ctx -> ctx.end("created"))
        .failureHandler(FailureHandler::handle);
    router.post("/participant/:id/friends").handler(body).handler(auth.asParticipant("id"))
        .handler(ctx -> ctx.end("befriended " + ctx.body().asString())).failureHandler(FailureHandler::handle);
    router.get("/participant/:id").handler(ctx -> ctx.end("read")).failureHandler(FailureHandler::handle);
    return HttpBootstrap.serve(vertx, new HttpServerOptions().setHost("127.0.0.1").setPort(0), router).await();
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
  }

  private static HttpResponse<Buffer> post(HttpServer server, String path, String authorization) {
    HttpRequest<Buffer> request = client.post(server.actualPort(), "127.0.0.1", path);
    if (authorization != null) {
      request.putHeader("Authorization", authorization);
    }
    return request.sendBuffer(Buffer.buffer("{\"to\":\"/participant/8\"}")).await();
  }

  private static void assertError(HttpResponse<Buffer> resp, int status, String code) {
    assertEquals(status, resp.statusCode(), resp.bodyAsString());
    assertEquals("application/json", resp.getHeader("Content-Type"));
    assertEquals(code, resp.bodyAsJsonObject().getString("error"));
    assertEquals(status, resp.bodyAsJsonObject().getInteger("status"));
  }

  @Test
  void withoutAGoodTokenAWriteIs401WithTheChallenge() {
    HttpResponse<Buffer> none = post(guarded, "/participant", null);
    assertError(none, 401, "missing_token");
    assertEquals("Bearer realm=\"newsfeed\"", none.getHeader("WWW-Authenticate"));
    HttpResponse<Buffer> wrong = post(guarded, "/participant/7/friends", TestTokens.rsa().bearer("7"));
    assertError(wrong, 401, "invalid_token");
    assertTrue(wrong.getHeader("WWW-Authenticate").contains("error=\"invalid_token\""));
  }

  @Test
  void aTokenWritesAsItsOwnParticipantOnly() {
    HttpResponse<Buffer> other = post(guarded, "/participant/7/friends", issuer.bearer("8"));
    assertError(other, 403, "forbidden");
    assertNull(other.getHeader("WWW-Authenticate"));
    HttpResponse<Buffer> own = post(guarded, "/participant/7/friends", issuer.bearer("7"));
    assertEquals(200, own.statusCode(), own.bodyAsString());
    assertEquals("befriended {\"to\":\"/participant/8\"}", own.bodyAsString(), "the body was read before the check");
    assertError(post(guarded, "/participant/x/friends", issuer.bearer("7")), 400, "invalid_id");
  }

  @Test
  void anyVerifiedCallerCreatesAParticipant() {
    assertEquals(200, post(guarded, "/participant", issuer.bearer("registration-service")).statusCode());
  }

  @Test
  void readsStayOpen() {
    assertEquals("read", client.get(guarded.actualPort(), "127.0.0.1", "/participant/7").send().await()
        .bodyAsString());
  }

  @Test
  void offEveryWriteIsAnswered() {
    assertEquals(200, post(open, "/participant", null).statusCode());
    assertEquals(200, post(open, "/participant/7/friends", "Bearer garbage").statusCode());
  }
}
