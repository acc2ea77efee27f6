package newsfeed.common.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The participant check of outbound and inbound against a fake social-graph: 1 exists, 2 does not, 3 fails. */
class ParticipantClientTest {
  private static final Map<String, AtomicInteger> ASKED = new ConcurrentHashMap<>();
  private static Vertx vertx;
  private static HttpServer socialGraph;
  private static WebClient web;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    socialGraph = vertx.createHttpServer().requestHandler(req -> {
      ASKED.computeIfAbsent(req.path(), p -> new AtomicInteger()).incrementAndGet();
      int status = switch (req.path()) {
        case "/participant/1" -> 200;
        case "/participant/2" -> 404;
        default -> 500;
      };
      req.response().setStatusCode(status).end();
    }).listen(0, "127.0.0.1").await();
    web = WebClient.create(vertx);
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
  }

  @Test
  void anUnknownParticipantIsAParticipantNotFound() {
    ParticipantClient client = client(0);
    assertNull(client.require(1).await());
    ApiError e = assertThrows(ApiError.class, () -> client.require(2).await());
    assertEquals(404, e.status());
    assertEquals("participant_not_found", e.code());
    assertEquals("no participant with id 2", e.getMessage());
  }

  @Test
  void whenSocialGraphCannotTellTheParticipantIsTakenToExist() {
    assertNull(client(0).require(3).await());
    assertThrows(Throwable.class, () -> client(0).exists(3).await(), "exists itself says it could not tell");
  }

  @Test
  void aClientWithMemoryAsksOncePerKnownIdAndAlwaysForUnknownOnes() {
    ParticipantClient remembering = client(10);
    int before1 = asked("/participant/1");
    int before2 = asked("/participant/2");
    for (int i = 0; i < 3; i++) {
      remembering.require(1).await();
      assertThrows(ApiError.class, () -> remembering.require(2).await());
    }
    assertEquals(before1 + 1, asked("/participant/1"));
    assertEquals(before2 + 3, asked("/participant/2"), "an unknown id may be created a moment later");
    ParticipantClient forgetting = client(0);
    forgetting.require(1).await();
    forgetting.require(1).await();
    assertEquals(before1 + 3, asked("/participant/1"));
  }

  private static ParticipantClient client(int remembered) {
    return new ParticipantClient(web, "http://127.0.0.1:" + socialGraph.actualPort() + "/", remembered);
  }

  private static int asked(String path) {
    AtomicInteger n = ASKED.get(path);
    return n == null ? 0 : n.get();
  }
}
