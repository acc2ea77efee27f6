package newsfeed.edge;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
import newsfeed.common.testing.TestTokens;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Edge's mutations with AUTH_ENABLED, against stand-in services: no token, a token it cannot verify and another
 * participant's token are refused (401 with the bearer challenge, 401, 403) before any call; the caller's own token
 * writes and is passed on to the service; queries need none. A service's 409 too_many_friends reaches the client as
 * the answer's status and the error's code, with or without authentication.
 */
@ExtendWith(VertxExtension.class)
class EdgeAuthTest {
  private static final TestTokens ISSUER = TestTokens.rsa();
  private static final String FULL = "99";
  private static StubService socialGraph;
  private static StubService outbound;
  private static RunningEdge guarded;
  private static RunningEdge open;

  @BeforeAll
  static void start(Vertx vertx) throws Exception {
    socialGraph = new StubService(vertx, key -> switch (key) {
      case "POST /participant" -> StubService.ok(StubService.participant(7, "ada"));
      case "POST /participant/7/friends" -> StubService.ok(new JsonObject().put("id", 1).put("from", "/participant/7")
          .put("to", "/participant/8"));
      case "POST /participant/" + FULL + "/friends" -> new StubService.Answer(409, Map.of("error", "too_many_friends",
          "message", "participant " + FULL + " already has 10000 friends, the most one may have (10000)",
          "status", 409));
      case "GET /participant/7" -> StubService.ok(StubService.participant(7, "ada"));
      default -> null;
    });
    outbound = new StubService(vertx, key -> "POST /participant/7/outbound".equals(key)
        ? StubService.ok(new JsonObject().put("from", "/participant/7").put("occurred", "2026-11-22")
            .put("subject", "s").put("story", "t"))
        : null);
    Map<String, String> urls = Map.of("SOCIAL_GRAPH_URL", socialGraph.url(), "OUTBOUND_URL", outbound.url(),
        "INBOUND_URL", outbound.url(), "SEARCH_URL", outbound.url());
    Map<String, String> env = new HashMap<>(urls);
    env.putAll(ISSUER.env());
    guarded = new RunningEdge(vertx, env);
    open = new RunningEdge(vertx, urls);
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {guarded, open, socialGraph, outbound}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception ignored) {
        // closing anyway
      }
    }
  }

  @BeforeEach
  void forgetCalls() {
    socialGraph.reset();
    outbound.reset();
  }

  private static final String CREATE = "mutation { createParticipant(input: {name: \"ada\"}) { id } }";
  private static final String BEFRIEND = "mutation { createFriend(input: {from_id: \"7\", to_id: \"8\"}) { id } }";
  private static final String POST = "mutation { createOutbound(input: {from_id: \"7\", subject: \"s\", "
      + "story: \"t\"}) { subject } }";

  private static JsonObject refused(HttpResponse<Buffer> resp, int status, String code) {
    assertEquals(status, resp.statusCode(), resp.bodyAsString());
    JsonObject error = resp.bodyAsJsonObject().getJsonArray("errors").getJsonObject(0);
    assertEquals(code, error.getJsonObject("extensions").getString("code"), resp.bodyAsString());
    assertEquals(status, error.getJsonObject("extensions").getInteger("status"));
    return error;
  }

  @Test
  void aMutationWithoutAGoodTokenIs401BeforeAnyCall() {
    for (String mutation : List.of(CREATE, BEFRIEND, POST)) {
      HttpResponse<Buffer> none = guarded.queryAs(null, "/graphql", mutation).await();
      refused(none, 401, "missing_token");
      assertEquals("Bearer realm=\"newsfeed\"", none.getHeader("WWW-Authenticate"));
      refused(guarded.queryAs(TestTokens.rsa().bearer("7"), "/graphql", mutation).await(), 401, "invalid_token");
      refused(guarded.queryAs("Bearer " + ISSUER.sign(TestTokens.claims("7").put("exp", 10)), "/", mutation)
          .await(), 401, "invalid_token");
    }
    assertEquals(List.of(), socialGraph.requests());
    assertEquals(List.of(), outbound.requests());
  }

  @Test
  void anotherParticipantsTokenIs403BeforeAnyCall() {
    refused(guarded.queryAs(ISSUER.bearer("8"), "/", BEFRIEND).await(), 403, "forbidden");
    refused(guarded.queryAs(ISSUER.bearer("8"), "/", POST).await(), 403, "forbidden");
    assertEquals(List.of(), socialGraph.requests());
    assertEquals(List.of(), outbound.requests());
  }

  @Test
  void theCallersOwnTokenWritesAndIsPassedOn() {
    String own = ISSUER.bearer("7");
    for (String mutation : List.of(BEFRIEND, POST)) {
      HttpResponse<Buffer> resp = guarded.queryAs(own, "/", mutation).await();
      assertEquals(200, resp.statusCode(), resp.bodyAsString());
      assertNull(resp.bodyAsJsonObject().getJsonArray("errors"), resp.bodyAsString());
    }
    HttpResponse<Buffer> created = guarded.queryAs(ISSUER.bearer("registration"), "/", CREATE).await();
    assertEquals(200, created.statusCode(), created.bodyAsString());
    assertEquals(List.of("POST /participant/7/friends", "POST /participant"), socialGraph.requests());
    assertEquals(own, socialGraph.authorizations().get(0), "the service checks the caller itself");
    assertEquals(List.of(own), outbound.authorizations());
  }

  @Test
  void queriesNeedNoToken() {
    HttpResponse<Buffer> resp = guarded.query("/", "query { participant(id: 7) { name } }");
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    assertEquals("ada", resp.bodyAsJsonObject().getJsonObject("data").getJsonObject("participant")
        .getString("name"));
  }

  @Test
  void withoutAuthenticationEveryMutationIsServedAndATokenStillPassedOn() {
    assertEquals(200, open.query("/", BEFRIEND).statusCode());
    assertEquals(200, open.queryAs("Bearer whatever", "/", POST).await().statusCode());
    assertEquals(List.of("null"), socialGraph.authorizations());
    assertEquals(List.of("Bearer whatever"), outbound.authorizations());
  }

  @Test
  void aFriendLimitIsA409WithTheServicesCode() {
    String befriendFull = "mutation { createFriend(input: {from_id: \"" + FULL + "\", to_id: \"8\"}) { id } }";
    for (HttpResponse<Buffer> resp : List.of(open.query("/", befriendFull),
        guarded.queryAs(ISSUER.bearer(FULL), "/", befriendFull).await())) {
      JsonObject error = refused(resp, 409, "too_many_friends");
      assertTrue(error.getString("message").contains("already has 10000 friends"), error.encode());
      assertEquals(new JsonArray().add("createFriend"), error.getJsonArray("path"));
    }
  }
}
