package newsfeed.edge;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;

import static newsfeed.edge.StubService.ok;
import static newsfeed.edge.StubService.participant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * `participant(id)` of an id no one has is the service's 404 whatever the query selects, `{ id }` and
 * `{ __typename }` included; a participant is asked of social-graph at most once per request; and the
 * participants a service named in an answer (friends, a friendship's ends, posters) are not checked again.
 * The four services are stubs that know participants 7 (friend of 8) and 8.
 */
@ExtendWith(VertxExtension.class)
class EdgeParticipantCheckTest {
  private static final String UNKNOWN = "99";
  private static StubService socialGraph;
  private static StubService outbound;
  private static StubService inbound;
  private static StubService search;
  private static RunningEdge edge;

  @BeforeAll
  static void start(Vertx vertx) throws Exception {
    socialGraph = new StubService(vertx, key -> switch (key) {
      case "GET /participant/7" -> ok(participant(7, "larry"));
      case "GET /participant/8" -> ok(participant(8, "moe"));
      case "GET /participant/7/friends" -> ok(new JsonArray().add(
          new JsonObject().put("id", 1).put("from", "/participant/7").put("to", "/participant/8")));
      case "POST /participant/7/friends" -> ok(
          new JsonObject().put("id", 2).put("from", "/participant/7").put("to", "/participant/8"));
      default -> null;
    });
    outbound = new StubService(vertx, key -> key.equals("GET /participant/7/outbound") ? ok(new JsonArray()) : null);
    inbound = new StubService(vertx, key -> key.equals("GET /participant/7/inbound") ? ok(new JsonArray()) : null);
    search = new StubService(vertx, key -> key.equals("GET /outbound") ? ok(new JsonArray().add("/participant/8"))
        : null);
    edge = new RunningEdge(vertx, Map.of("SOCIAL_GRAPH_URL", socialGraph.url(), "OUTBOUND_URL", outbound.url(),
        "INBOUND_URL", inbound.url(), "SEARCH_URL", search.url()));
  }

  @AfterAll
  static void stop() {
    if (edge != null) {
      edge.close();
    }
    for (StubService s : new StubService[] {socialGraph, outbound, inbound, search}) {
      if (s != null) {
        s.close();
      }
    }
  }

  @BeforeEach
  void resetCounts() {
    for (StubService s : new StubService[] {socialGraph, outbound, inbound, search}) {
      s.reset();
    }
  }

  private static JsonObject data(HttpResponse<Buffer> resp) {
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    assertNull(resp.bodyAsJsonObject().getValue("errors"), resp.bodyAsString());
    return resp.bodyAsJsonObject().getJsonObject("data");
  }

  @Test
  void anUnknownIdIs404WhateverTheQuerySelects() {
    String[] selections = {"id", "__typename", "id, link", "id, name", "... on Participant { id }",
        "id, friends { id }", "inbound { subject }", "id, outbound { subject }"};
    for (String selection : selections) {
      String q = "query { participant(id: " + UNKNOWN + ") { " + selection + " } }";
      HttpResponse<Buffer> resp = edge.query("/graphql", q);
      assertEquals(404, resp.statusCode(), q + ": " + resp.bodyAsString());
      JsonObject body = resp.bodyAsJsonObject();
      JsonObject error = body.getJsonArray("errors").getJsonObject(0);
      assertEquals("participant_not_found", error.getJsonObject("extensions").getString("code"), q);
      assertEquals(404, error.getJsonObject("extensions").getInteger("status"), q);
      assertTrue(error.getString("message").contains(UNKNOWN), q + ": the service's own message");
      assertTrue(body.getJsonObject("data").containsKey("participant"), q);
      assertNull(body.getJsonObject("data").getValue("participant"), q);
    }
  }

  @Test
  void aKnownIdAloneCostsOneCall() {
    assertEquals(new JsonObject().put("participant", new JsonObject().put("id", "7")),
        data(edge.query("/", "query { participant(id: 7) { id } }")));
    assertEquals(List.of("GET /participant/7"), socialGraph.requests());
  }

  @Test
  void aParticipantIsAskedOncePerRequest() {
    assertEquals(new JsonObject().put("id", "7").put("name", "larry").put("link", "/participant/7"),
        data(edge.query("/", "query { participant(id: 7) { id, name, link } }")).getJsonObject("participant"));
    assertEquals(List.of("GET /participant/7"), socialGraph.requests());

    socialGraph.reset();
    JsonObject both = data(edge.query("/", "query { a: participant(id: 7) { id } "
        + "b: participant(id: \"/participant/7\") { __typename, name } }"));
    assertEquals("larry", both.getJsonObject("b").getString("name"));
    assertEquals(List.of("GET /participant/7"), socialGraph.requests());
  }

  @Test
  void aFieldThatAsksItsServiceIsTheCheck() {
    data(edge.query("/", "query { participant(id: 7) { id, inbound { subject } } }"));
    assertEquals(List.of(), socialGraph.requests());
    assertEquals(1, inbound.count("GET /participant/7/inbound"));

    data(edge.query("/", "query { participant(id: 7) { outbound { subject } } }"));
    assertEquals(List.of(), socialGraph.requests());
    assertEquals(1, outbound.count("GET /participant/7/outbound"));
  }

  @Test
  void participantsAServiceNamedAreNotCheckedAgain() {
    // the classic client's friends query: the list, then each friend's name once; `{ id }` alone costs nothing
    assertEquals(new JsonArray().add(new JsonObject().put("id", "8")),
        data(edge.query("/", "query { participant(id: 7) { friends { id } } }")).getJsonObject("participant")
            .getJsonArray("friends"));
    assertEquals(List.of("GET /participant/7/friends"), socialGraph.requests());

    socialGraph.reset();
    assertEquals(
        new JsonObject().put("from", new JsonObject().put("id", "7")).put("to", new JsonObject().put("id", "8")),
        data(edge.query("/", "mutation { createFriend(input: {from_id: \"7\", to_id: \"8\"}) "
            + "{ from { id }, to { id } } }")).getJsonObject("createFriend"));
    assertEquals(List.of("POST /participant/7/friends"), socialGraph.requests());

    socialGraph.reset();
    assertEquals(new JsonArray().add(new JsonObject().put("id", "8")),
        data(edge.query("/", "query { posters(keywords: \"x\") { id } }")).getJsonArray("posters"));
    assertEquals(List.of(), socialGraph.requests());
  }
}
