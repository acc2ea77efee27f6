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

/**
 * A service given as several URLs (its local instances, as ci/local/services.sh starts them): edge spreads its calls
 * over all of them, and an instance that refuses connections costs no failed request while another answers.
 */
@ExtendWith(VertxExtension.class)
class EdgeInstancesTest {
  private static final String POST = "mutation { createOutbound(input: {from_id: \"7\", subject: \"s\", story: \"s\"}) "
      + "{ from { id } } }";
  private static StubService socialGraph1;
  private static StubService socialGraph2;
  private static StubService outbound1;
  private static StubService outbound2;
  private static Vertx vertx;

  @BeforeAll
  static void start(Vertx v) {
    vertx = v;
    socialGraph1 = new StubService(v, key -> key.equals("GET /participant/7") ? ok(participant(7, "larry")) : null);
    socialGraph2 = new StubService(v, key -> key.equals("GET /participant/7") ? ok(participant(7, "larry")) : null);
    outbound1 = new StubService(v, EdgeInstancesTest::posted);
    outbound2 = new StubService(v, EdgeInstancesTest::posted);
  }

  private static StubService.Answer posted(String key) {
    return key.equals("POST /participant/7/outbound") ? ok(new JsonObject().put("from", "/participant/7")
        .put("occurred", "2026-11-22T15:30:00.123Z").put("subject", "s").put("story", "s")) : null;
  }

  @AfterAll
  static void stop() {
    for (StubService s : new StubService[] {socialGraph1, socialGraph2, outbound1, outbound2}) {
      if (s != null) {
        s.close();
      }
    }
  }

  @BeforeEach
  void resetCounts() {
    for (StubService s : new StubService[] {socialGraph1, socialGraph2, outbound1, outbound2}) {
      s.reset();
    }
  }

  private static RunningEdge edge(String socialGraphUrls, String outboundUrls) throws Exception {
    String closed = "http://127.0.0.1:" + freePort();
    return new RunningEdge(vertx, Map.of("SOCIAL_GRAPH_URL", socialGraphUrls, "OUTBOUND_URL", outboundUrls,
        "INBOUND_URL", closed, "SEARCH_URL", closed));
  }

  private static void assertOk(HttpResponse<Buffer> resp) {
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    assertEquals(null, resp.bodyAsJsonObject().getValue("errors"), resp.bodyAsString());
  }

  @Test
  void callsGoRoundRobinOverEveryInstance() throws Exception {
    try (RunningEdge edge = edge(socialGraph1.url() + "," + socialGraph2.url(),
        outbound1.url() + "," + outbound2.url())) {
      for (int i = 0; i < 10; i++) {
        assertOk(edge.query("/", "query { participant(id: 7) { name } }"));
        assertOk(edge.query("/", POST));
      }
    }
    assertEquals(5, socialGraph1.count("GET /participant/7"));
    assertEquals(5, socialGraph2.count("GET /participant/7"));
    assertEquals(5, outbound1.count("POST /participant/7/outbound"));
    assertEquals(5, outbound2.count("POST /participant/7/outbound"));
  }

  @Test
  void anInstanceThatRefusesConnectionsIsSkipped() throws Exception {
    String down = "http://127.0.0.1:" + freePort();
    try (RunningEdge edge = edge(down + "," + socialGraph1.url() + "," + down, outbound1.url() + "," + down)) {
      for (int i = 0; i < 6; i++) {
        assertOk(edge.query("/", "query { participant(id: 7) { name } }"));
        assertOk(edge.query("/", POST));
      }
    }
    assertEquals(6, socialGraph1.count("GET /participant/7"));
    assertEquals(6, outbound1.count("POST /participant/7/outbound"), "a refused POST was never sent: sent once");
  }

  @Test
  void noInstanceAnsweringIs503() throws Exception {
    String down1 = "http://127.0.0.1:" + freePort();
    String down2 = "http://127.0.0.1:" + freePort();
    try (RunningEdge edge = edge(down1 + "," + down2, outbound1.url())) {
      HttpResponse<Buffer> resp = edge.query("/", "query { participant(id: 7) { name } }");
      assertEquals(503, resp.statusCode(), resp.bodyAsString());
      JsonArray errors = resp.bodyAsJsonObject().getJsonArray("errors");
      assertEquals("service_unavailable", errors.getJsonObject(0).getJsonObject("extensions").getString("code"));
    }
  }
}
