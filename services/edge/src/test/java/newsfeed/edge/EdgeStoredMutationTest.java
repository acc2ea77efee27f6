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

import java.util.Map;

import static newsfeed.common.testing.Waiting.freePort;
import static newsfeed.edge.StubService.ok;
import static newsfeed.edge.StubService.participant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A request whose mutation a service stored is a 200 whatever else in it failed: a client that only looks at the
 * status (the classic one retries anything else) would otherwise send the stored mutation again and store it twice.
 * The errors name the fields that failed.
 */
@ExtendWith(VertxExtension.class)
class EdgeStoredMutationTest {
  private static StubService socialGraph;
  private static StubService outbound;
  private static Vertx vertx;

  @BeforeAll
  static void start(Vertx v) {
    vertx = v;
    socialGraph = new StubService(v, key -> key.equals("POST /participant") ? ok(participant(9, "moe")) : null);
    outbound = new StubService(v, key -> key.equals("POST /participant/9/outbound")
        ? ok(new JsonObject().put("from", "/participant/9").put("occurred", "2026-11-22T15:30:00.123Z")
            .put("subject", "s").put("story", "s"))
        : null);
  }

  @AfterAll
  static void stop() {
    for (StubService s : new StubService[] {socialGraph, outbound}) {
      if (s != null) {
        s.close();
      }
    }
  }

  @BeforeEach
  void resetCounts() {
    socialGraph.reset();
    outbound.reset();
  }

  private static RunningEdge edge(String socialGraphUrl, String outboundUrl) throws Exception {
    String closed = "http://127.0.0.1:" + freePort();
    return new RunningEdge(vertx, Map.of("SOCIAL_GRAPH_URL", socialGraphUrl, "OUTBOUND_URL", outboundUrl,
        "INBOUND_URL", closed, "SEARCH_URL", closed));
  }

  /** The one error of the answer: a 503 of the field at {@code path}. */
  private static void assertUnavailable(HttpResponse<Buffer> resp, String path) {
    JsonArray errors = resp.bodyAsJsonObject().getJsonArray("errors");
    assertEquals(1, errors.size(), resp.bodyAsString());
    assertEquals(503, errors.getJsonObject(0).getJsonObject("extensions").getInteger("status"));
    assertEquals(path, String.join(".", errors.getJsonObject(0).getJsonArray("path").stream()
        .map(String::valueOf).toList()));
  }

  @Test
  void aStoredMutationBesideAFieldWhoseServiceIsDownIs200() throws Exception {
    try (RunningEdge edge = edge(socialGraph.url(), "http://127.0.0.1:" + freePort())) {
      HttpResponse<Buffer> resp = edge.query("/", "mutation { a: createParticipant(input: {name: \"moe\"}) { id } "
          + "b: createOutbound(input: {from_id: \"9\", subject: \"s\", story: \"s\"}) { subject } }");
      assertEquals(200, resp.statusCode(), resp.bodyAsString());
      JsonObject data = resp.bodyAsJsonObject().getJsonObject("data");
      assertEquals("9", data.getJsonObject("a").getString("id"));
      assertNull(data.getValue("b"));
      assertUnavailable(resp, "b");
      assertEquals(1, socialGraph.count("POST /participant"));
    }
  }

  @Test
  void aStoredPostWhoseAnswerNeedsAServiceThatIsDownIs200() throws Exception {
    try (RunningEdge edge = edge("http://127.0.0.1:" + freePort(), outbound.url())) {
      HttpResponse<Buffer> resp = edge.query("/", "mutation { createOutbound(input: {from_id: \"9\", subject: \"s\", "
          + "story: \"s\"}) { subject from { name } } }");
      assertEquals(200, resp.statusCode(), resp.bodyAsString());
      assertUnavailable(resp, "createOutbound.from.name");
      assertEquals(1, outbound.count("POST /participant/9/outbound"));
    }
  }

  @Test
  void aMutationNotStoredBecauseItsServiceIsDownIsStill503() throws Exception {
    try (RunningEdge edge = edge(socialGraph.url(), "http://127.0.0.1:" + freePort())) {
      HttpResponse<Buffer> resp = edge.query("/", "mutation { createOutbound(input: {from_id: \"9\", subject: \"s\", "
          + "story: \"s\"}) { subject } }");
      assertEquals(503, resp.statusCode(), resp.bodyAsString());
      assertNotNull(resp.bodyAsJsonObject().getJsonArray("errors"));
    }
  }
}
