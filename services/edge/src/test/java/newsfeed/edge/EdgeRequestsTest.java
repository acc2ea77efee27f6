package newsfeed.edge;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What edge answers by itself: requests that are not GraphQL, queries that do not parse or validate, ids that are
 * not ids, mutations over GET, too deep a query (all JSON 4xx before any call to a service), and the 503 of a
 * request whose service does not answer: here every service URL is a closed port, so any call is refused.
 */
@ExtendWith(VertxExtension.class)
class EdgeRequestsTest {
  private static final String CLOSED = "http://127.0.0.1:1";
  private static RunningEdge edge;

  @BeforeAll
  static void start(Vertx vertx) throws Exception {
    edge = new RunningEdge(vertx, Map.of("SOCIAL_GRAPH_URL", CLOSED, "OUTBOUND_URL", CLOSED,
        "INBOUND_URL", CLOSED, "SEARCH_URL", CLOSED));
  }

  @AfterAll
  static void stop() {
    if (edge != null) {
      edge.close();
    }
  }

  /** The answer's GraphQL errors, after checking it is JSON with the status expected. */
  private static JsonArray errors(HttpResponse<Buffer> resp, int status) {
    assertEquals(status, resp.statusCode(), resp.bodyAsString());
    assertTrue(resp.getHeader("Content-Type").startsWith("application/json"), resp.getHeader("Content-Type"));
    JsonArray errors = resp.bodyAsJsonObject().getJsonArray("errors");
    assertFalse(errors.isEmpty());
    errors.forEach(e -> assertFalse(((JsonObject) e).getString("message").isBlank()));
    return errors;
  }

  private static Object extension(JsonArray errors, String key) {
    return errors.getJsonObject(0).getJsonObject("extensions").getValue(key);
  }

  @Test
  void aQueryThatDoesNotParseIs400() {
    for (String path : new String[] {"/", "/graphql"}) {
      JsonArray errors = errors(edge.query(path, "query { participant(id: 1) { name }"), 400);
      assertEquals("InvalidSyntax", extension(errors, "classification"));
    }
  }

  @Test
  void anUnknownFieldOrArgumentIs400() {
    assertEquals("ValidationError",
        extension(errors(edge.query("/", "query { participant(id: 1) { nickname } }"), 400), "classification"));
    errors(edge.query("/", "query { participant(key: 1) { name } }"), 400);
    errors(edge.query("/", "query { participant(id: 1.5) { name } }"), 400);
    errors(edge.query("/", "mutation { createParticipant(input: {name: \"a\", age: 3}) { id } }"), 400);
    errors(edge.query("/", "mutation { createFriend(input: {from_id: 1}) { id } }"), 400);
    errors(edge.query("/", "query { participant(id: 1) }"), 400);   // an object needs a selection
  }

  @Test
  void anIdThatIsNoParticipantIdIs400BeforeAnyCall() {
    JsonArray errors = errors(edge.query("/", "query { participant(id: \"abc\") { name } }"), 400);
    assertEquals("bad_request", extension(errors, "code"));
    assertEquals(400, extension(errors, "status"));
    errors(edge.query("/", "mutation { createFriend(input: {from_id: \"0\", to_id: \"7\"}) { to { id } } }"), 400);
    errors(edge.query("/", "mutation { createOutbound(input: {from_id: \"/participant/x\", subject: \"s\", "
        + "story: \"s\"}) { from { id } } }"), 400);
  }

  @Test
  void aBodyThatIsNotAGraphQlRequestIsA4xxInGraphQlShape() {
    errors(edge.post("/", "application/json", Buffer.buffer("{\"query\": ")), 400);
    errors(edge.post("/", "application/json", Buffer.buffer("{\"variables\": {}}")), 400);
    errors(edge.post("/graphql", "application/x-www-form-urlencoded", Buffer.buffer("query=x")), 415);
    errors(edge.post("/", "application/json", Buffer.buffer("{\"query\":\"" + "x".repeat(140_000) + "\"}")), 413);
  }

  @Test
  void aMutationOverGetIsRefused() {
    String q = URLEncoder.encode("mutation { createParticipant(input: {name: \"get\"}) { id } }",
        StandardCharsets.UTF_8);
    HttpResponse<Buffer> resp = edge.get("/graphql?query=" + q);
    assertEquals("method_not_allowed", extension(errors(resp, 405), "code"));
    assertEquals("GET, POST", resp.getHeader("Allow"));
  }

  @Test
  void aQueryDeeperThanTheLimitIs400() {
    errors(edge.query("/", "query { participant(id: 1) { friends { friends { friends { friends { id } } } } } }"),
        400);
  }

  @Test
  void introspectionNeedsNoService() {
    String q = URLEncoder.encode("{ __schema { mutationType { name } } }", StandardCharsets.UTF_8);
    HttpResponse<Buffer> resp = edge.get("/graphql?query=" + q);
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    assertEquals("Mutation",
        resp.bodyAsJsonObject().getJsonObject("data").getJsonObject("__schema").getJsonObject("mutationType")
            .getString("name"));
  }

  @Test
  void aServiceThatDoesNotAnswerIs503() {
    String[] queries = {
        "query { participant(id: 1) { name } }",
        "query { participant(id: 1) { id } }",   // an id a client asks for is checked with social-graph
        "query { participant(id: 1) { inbound { occurred, subject, story } } }",
        "query { participant(id: 1) { outbound { occurred, subject, story } } }",
        "query { posters(keywords: \"x\") { id } }",
        "mutation { createParticipant(input: {name: \"x\"}) { id } }",
        "mutation { createOutbound(input: {from_id: \"1\", subject: \"s\", story: \"s\"}) { from { id } } }"};
    for (String q : queries) {
      HttpResponse<Buffer> resp = edge.query("/", q);
      JsonArray errors = errors(resp, 503);
      assertEquals("service_unavailable", extension(errors, "code"), q);
      JsonObject data = resp.bodyAsJsonObject().getJsonObject("data");
      assertTrue(data.stream().allMatch(e -> e.getValue() == null), q + ": " + data);
    }
  }

  @Test
  void healthAndMetricsAnswer() {
    assertEquals(200, edge.get("/health/live").statusCode());
    assertEquals(200, edge.get("/health/ready").statusCode(), "no store: ready while it listens");
    edge.query("/graphql", "query { participant(id: 1) { name } }");
    String metrics = edge.get("/metrics").bodyAsString();
    assertTrue(metrics.contains("newsfeed_http_server_requests_seconds_count{method=\"POST\",route=\"/graphql\","
        + "service=\"edge\",status=\"503\"}"), metrics);
    assertTrue(metrics.contains("newsfeed_store_client_seconds_count{operation=\"get\",outcome=\"error\","
        + "service=\"edge\",store=\"social-graph\"}"), metrics);
  }

  @Test
  void anUnknownPathOrMethodIsAGraphQlAnswer() {
    HttpResponse<Buffer> getRoot = edge.get("/");
    assertEquals("method_not_allowed", extension(errors(getRoot, 405), "code"));
    assertEquals("POST", getRoot.getHeader("Allow"), "a 405 names the methods the path takes");
    assertEquals("not_found", extension(errors(edge.get("/graphq"), 404), "code"));
    assertEquals("not_found", extension(errors(edge.post("/graphq", "application/json",
        Buffer.buffer("{\"query\": \"{ __typename }\"}")), 404), "code"));
  }

  @Test
  void aPostWithItsRequestInTheUrlIsRefused() {
    // a form any web page can send: the query in the URL must not run, whatever the body
    String q = URLEncoder.encode("mutation { createParticipant(input: {name: \"csrf\"}) { id } }",
        StandardCharsets.UTF_8);
    for (String path : new String[] {"/", "/graphql"}) {
      JsonArray errors = errors(edge.post(path + "?query=" + q, "application/x-www-form-urlencoded",
          Buffer.buffer("a=b")), 400);
      assertEquals("bad_request", extension(errors, "code"));
      errors(edge.post(path + "?query=" + q, "application/json", Buffer.buffer("{\"query\": \"{ __typename }\"}")),
          400);
      errors(edge.post(path + "?x=%zz", "application/json", Buffer.buffer("{\"query\": \"{ __typename }\"}")), 400);
    }
  }
}
