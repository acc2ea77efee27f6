package newsfeed.edge;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.TcpRelay;
import newsfeed.common.testing.TestTokens;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import static newsfeed.common.testing.Waiting.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Edge in front of the four running services (their URLs from the environment, as ci/local/services.sh prints them):
 * an unknown participant is a 404 carried from the service whatever the query selects (`{ id }` too), bad input
 * (a query that does not validate, a field the service refuses) is a 400 and stores nothing, and a service that
 * stops answering is a 503 until it is back.
 */
class EdgeServiceIT {
  private static final String[] URLS = {"SOCIAL_GRAPH_URL", "OUTBOUND_URL", "INBOUND_URL", "SEARCH_URL"};
  private static Vertx vertx;
  private static WebClient http;
  private static RunningEdge edge;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    http = WebClient.create(vertx);
    edge = new RunningEdge(vertx, services(Map.of()));
  }

  @AfterAll
  static void stop() {
    if (edge != null) {
      edge.close();
    }
    if (vertx != null) {
      vertx.close().await();
    }
  }

  private static Map<String, String> services(Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>();
    for (String name : URLS) {
      env.put(name, StackEnv.get(name));
    }
    env.putAll(overrides);
    return env;
  }

  private static JsonObject ok(HttpResponse<Buffer> resp) {
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    JsonObject body = resp.bodyAsJsonObject();
    assertTrue(body.getJsonArray("errors") == null, resp.bodyAsString());
    return body.getJsonObject("data");
  }

  private static JsonObject error(HttpResponse<Buffer> resp, int status) {
    assertEquals(status, resp.statusCode(), resp.bodyAsString());
    assertTrue(resp.getHeader("Content-Type").startsWith("application/json"));
    return resp.bodyAsJsonObject().getJsonArray("errors").getJsonObject(0);
  }

  private static String createParticipant(RunningEdge via, String name) {
    return ok(via.query("/", "mutation { createParticipant(input: {name: \"" + name + "\"}) { id, name } }"))
        .getJsonObject("createParticipant").getString("id");
  }

  /** The poster's own feed asked of outbound directly, not through edge. */
  private static JsonArray outboundFeed(String id) {
    HttpResponse<Buffer> resp = http.getAbs(StackEnv.get("OUTBOUND_URL") + "/participant/" + id + "/outbound")
        .send().await();
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    return resp.bodyAsJsonArray();
  }

  @Test
  void anUnknownParticipantIs404AsTheServicesSay() {
    String known = createParticipant(edge, "edge known " + UUID.randomUUID());
    long unknown = Long.MAX_VALUE - 17;
    String[] queries = {
        "query { participant(id: " + unknown + ") { name } }",
        "query { participant(id: " + unknown + ") { id } }",
        "query { participant(id: " + unknown + ") { __typename } }",
        "query { participant(id: " + unknown + ") { friends { id, name } } }",
        "query { participant(id: " + unknown + ") { outbound { subject } } }",
        "query { participant(id: " + unknown + ") { inbound { subject } } }",
        "mutation { createFriend(input: {from_id: \"" + known + "\", to_id: \"" + unknown + "\"}) { to { id } } }"};
    for (String q : queries) {
      HttpResponse<Buffer> resp = edge.query("/", q);
      JsonObject error = error(resp, 404);
      assertEquals(404, error.getJsonObject("extensions").getInteger("status"), q);
      assertEquals("participant_not_found", error.getJsonObject("extensions").getString("code"), q);
      assertTrue(error.getString("message").contains(Long.toString(unknown)), q + ": the service's own message");
      assertTrue(resp.bodyAsJsonObject().getJsonObject("data").stream().allMatch(e -> e.getValue() == null), q);
    }
  }

  @Test
  void withAuthenticationOnAMutationNeedsTheCallersOwnToken() throws Exception {
    TestTokens issuer = TestTokens.rsa();
    try (RunningEdge guarded = new RunningEdge(vertx, services(issuer.env()))) {
      String create = "mutation { createParticipant(input: {name: \"edge guarded " + UUID.randomUUID()
          + "\"}) { id } }";
      HttpResponse<Buffer> none = guarded.queryAs(null, "/", create).await();
      assertEquals("missing_token", error(none, 401).getJsonObject("extensions").getString("code"));
      assertEquals("Bearer realm=\"newsfeed\"", none.getHeader("WWW-Authenticate"));
      assertEquals("invalid_token", error(guarded.queryAs(TestTokens.rsa().bearer("1"), "/", create).await(), 401)
          .getJsonObject("extensions").getString("code"));
      String id = ok(guarded.queryAs(issuer.bearer("registration"), "/", create).await())
          .getJsonObject("createParticipant").getString("id");

      String post = "mutation { createOutbound(input: {from_id: \"" + id + "\", subject: \"s\", story: \"t\"}) "
          + "{ subject } }";
      assertEquals("forbidden", error(guarded.queryAs(issuer.bearer(id + "0"), "/", post).await(), 403)
          .getJsonObject("extensions").getString("code"));
      assertEquals(new JsonArray(), outboundFeed(id), "a refused post is stored nowhere");
      ok(guarded.queryAs(issuer.bearer(id), "/", post).await());
      assertEquals(1, outboundFeed(id).size());
      ok(guarded.query("/", "query { participant(id: " + id + ") { name, outbound { subject } } }"));
    }
  }

  @Test
  void badInputIs400AndStoresNothing() {
    String id = createParticipant(edge, "edge poster " + UUID.randomUUID());
    String post = "createOutbound(input: {from_id: \"" + id + "\", occurred: \"2026-11-22\", subject: \"s\", "
        + "story: \"never stored\"";
    // does not parse; does not validate (an unknown input field, a wrong type); the services refuse a field
    error(edge.query("/", "mutation { " + post + " { from { id } } }"), 400);
    error(edge.query("/", "mutation { " + post + ", mood: \"x\"}) { from { id } } }"), 400);
    error(edge.query("/", "mutation { " + post + ", subject: 3}) { from { id } } }"), 400);
    JsonObject refused = error(edge.query("/", "mutation { createOutbound(input: {from_id: \"" + id
        + "\", occurred: \"yesterday\", subject: \"s\", story: \"s\"}) { from { id } } }"), 400);
    assertEquals(400, refused.getJsonObject("extensions").getInteger("status"));
    assertTrue(refused.getJsonArray("path").contains("createOutbound"), refused.encode());
    error(edge.query("/", "mutation { createOutbound(input: {from_id: \"" + id
        + "\", story: \"no subject\"}) { from { id } } }"), 400);
    error(edge.query("/", "mutation { createParticipant(input: {name: \"\"}) { id } }"), 400);
    assertEquals(new JsonArray(), outboundFeed(id));

    // the same post, well formed, is stored: the checks above could have seen it
    JsonObject posted = ok(edge.query("/", "mutation { " + post + "}) { from { id }, occurred, subject } }"))
        .getJsonObject("createOutbound");
    assertEquals(new JsonObject().put("from", new JsonObject().put("id", id)).put("occurred", "2026-11-22")
        .put("subject", "s"), posted);
    assertEquals(1, outboundFeed(id).size());
  }

  @Test
  void aCreateRetriedWithItsIdempotencyKeyMakesOneParticipantAndOnePost() {
    String key = UUID.randomUUID().toString();
    String create = "mutation { createParticipant(input: {name: \"edge retry\", idempotency_key: \"" + key
        + "\"}) { id } }";
    String id = ok(edge.query("/", create)).getJsonObject("createParticipant").getString("id");
    assertEquals(id, ok(edge.query("/", create)).getJsonObject("createParticipant").getString("id"),
        "the retry gets the participant the first request made");
    JsonObject reused = error(edge.query("/", "mutation { createParticipant(input: {name: \"another\", "
        + "idempotency_key: \"" + key + "\"}) { id } }"), 422);
    assertEquals("idempotency_key_reused", reused.getJsonObject("extensions").getString("code"), reused.encode());

    String post = "mutation { createOutbound(input: {from_id: \"" + id + "\", occurred: \"2026-11-22\", "
        + "subject: \"once\", story: \"sent twice\", idempotency_key: \"" + key + "\"}) { occurred } }";
    ok(edge.query("/", post));
    ok(edge.query("/", post));
    assertEquals(1, outboundFeed(id).size(), "the retried post is stored once");
    // a key no header may carry (empty, a line break in it) is a 400, and nothing is stored
    for (String bad : new String[] {"", "a\\nb"}) {
      error(edge.query("/", post.replace("idempotency_key: \"" + key + "\"", "idempotency_key: \"" + bad + "\"")
          .replace("sent twice", "never stored")), 400);
    }
    assertEquals(1, outboundFeed(id).size());
  }

  @Test
  void aServiceThatStopsAnsweringIs503UntilItIsBack() throws Exception {
    URI socialGraph = URI.create(StackEnv.get("SOCIAL_GRAPH_URL"));
    int relayPort = freePort();
    TcpRelay relay = new TcpRelay(vertx, relayPort, socialGraph.getHost(), socialGraph.getPort());
    relay.start();
    try (RunningEdge viaRelay = new RunningEdge(vertx,
        services(Map.of("SOCIAL_GRAPH_URL", "http://127.0.0.1:" + relayPort)))) {
      String name = "edge relay " + UUID.randomUUID();
      String id = createParticipant(viaRelay, name);
      String q = "query { participant(id: " + id + ") { name } }";
      assertEquals(name, ok(viaRelay.query("/", q)).getJsonObject("participant").getString("name"));

      relay.stop();
      for (String query : new String[] {q, "mutation { createParticipant(input: {name: \"x\"}) { id } }"}) {
        HttpResponse<Buffer> resp = viaRelay.query("/graphql", query);
        JsonObject error = error(resp, 503);
        assertEquals("service_unavailable", error.getJsonObject("extensions").getString("code"));
        assertTrue(error.getString("message").contains("social-graph"), error.encode());
      }
      // a query that needs only the other services is still served
      ok(viaRelay.query("/", "query { participant(id: " + id + ") { outbound { subject } } }"));

      relay.start();
      assertEquals(name, ok(viaRelay.query("/", q)).getJsonObject("participant").getString("name"));
    } finally {
      relay.stop();
    }
  }
}
