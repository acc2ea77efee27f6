package newsfeed.e2e;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.util.List;

import static newsfeed.e2e.OpenApiCheck.call;
import static newsfeed.e2e.OpenApiCheck.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static newsfeed.e2e.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/openapi.yaml against the five running services: every operation, its success and its error answers,
 * is sent for real and checked by {@link OpenApiCheck}. Each test needs only the services it talks to (URLs
 * SOCIAL_GRAPH_URL, OUTBOUND_URL, INBOUND_URL, SEARCH_URL, EDGE_URL from ci/tests/e2e.sh).
 */
class OpenApiConformanceIT extends WithOpenApiCheck {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final long UNKNOWN_ID = Long.MAX_VALUE - 13;

  private static String word() {
    return "oa" + Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36);
  }

  @Test
  void socialGraph() {
    String sg = url("SOCIAL_GRAPH_URL");
    HttpResponse<Buffer> created = check.send(sg, call("createParticipant").json(new JsonObject().put("name", "Ada")));
    assertEquals(200, created.statusCode());
    long ada = created.bodyAsJsonObject().getLong("id");
    assertEquals("/participant/" + ada, created.getHeader("Location"));
    long bob = check.send(sg, call("createParticipant").json(new JsonObject().put("name", "Bob")))
        .bodyAsJsonObject().getLong("id");
    long cy = check.send(sg, call("createParticipant").json(new JsonObject().put("name", "Cy")))
        .bodyAsJsonObject().getLong("id");
    for (String bad : List.of("", "not json", "[]", "{}", "{\"name\":\"\"}", "{\"name\":7}",
        new JsonObject().put("name", "n".repeat(201)).encode())) {
      assertEquals(400, check.send(sg, call("createParticipant").raw(bad)).statusCode(), bad);
    }
    assertEquals(413, check.send(sg, call("createParticipant").json(new JsonObject().put("name", "x".repeat(70_000))))
        .statusCode());
    HttpResponse<Buffer> byForm = check.send(sg, call("createParticipant").form("name=Ada+Lovelace"));
    assertEquals(200, byForm.statusCode());
    assertEquals("Ada Lovelace", byForm.bodyAsJsonObject().getString("name"));
    assertEquals(400, check.send(sg, call("createParticipant").form("nom=Ada")).statusCode());
    assertEquals(415, check.send(sg, call("createParticipant").typed("text/csv", "{\"name\":\"Ada\"}")).statusCode());

    assertEquals(200, check.send(sg, call("getParticipant").id(ada)).statusCode());
    assertEquals(404, check.send(sg, call("getParticipant").id(UNKNOWN_ID)).statusCode());
    for (String id : List.of("abc", "0", "-1", "9223372036854775808")) {
      assertEquals(400, check.send(sg, call("getParticipant").id(id)).statusCode(), id);
    }

    assertEquals(200, check.send(sg, call("befriend").id(ada)
        .json(new JsonObject().put("from", "/participant/" + ada).put("to", "/participant/" + bob))).statusCode());
    assertEquals(200, check.send(sg, call("befriend").id(bob).json(new JsonObject().put("to", ada))).statusCode(),
        "an existing friendship is 200");
    assertEquals(200, check.send(sg, call("befriend").id(ada).json(new JsonObject().put("to", "/participant/" + cy)))
        .statusCode());
    assertEquals(404, check.send(sg, call("befriend").id(ada).json(new JsonObject().put("to", UNKNOWN_ID)))
        .statusCode());
    long dee = byForm.bodyAsJsonObject().getLong("id");
    assertEquals(200, check.send(sg, call("befriend").id(dee)
        .form("from=%2Fparticipant%2F" + dee + "&to=%2Fparticipant%2F" + cy)).statusCode());
    assertEquals(415, check.send(sg, call("befriend").id(dee).typed("text/plain", "to=" + bob)).statusCode());
    for (String bad : List.of("{}", "{\"to\":\"/person/1\"}", "{\"to\":0}", "{\"to\":[1]}", "not json",
        "{\"to\":\"/participant/" + ada + "\"}", "{\"from\":\"/participant/" + bob + "\",\"to\":" + cy + "}")) {
      assertEquals(400, check.send(sg, call("befriend").id(ada).raw(bad)).statusCode(), bad);
    }

    HttpResponse<Buffer> all = check.send(sg, call("getFriends").id(ada));
    assertEquals(2, all.bodyAsJsonArray().size());
    HttpResponse<Buffer> first = check.send(sg, call("getFriends").id(ada).query("limit", 1));
    String cursor = first.getHeader("X-Next-Cursor");
    assertNotNull(cursor, "a next page");
    HttpResponse<Buffer> second = check.send(sg, call("getFriends").id(ada).query("limit", 1).query("cursor", cursor));
    assertEquals(1, second.bodyAsJsonArray().size());
    assertEquals(404, check.send(sg, call("getFriends").id(UNKNOWN_ID)).statusCode());
    for (String[] q : new String[][] {{"limit", "0"}, {"limit", "x"}, {"limit", "10001"}, {"cursor", "nope"}}) {
      assertEquals(400, check.send(sg, call("getFriends").id(ada).query(q[0], q[1])).statusCode(), q[0] + "=" + q[1]);
    }
    assertEquals(400, check.send(sg, call("getFriends").id("x")).statusCode());
    operations(sg);
  }

  @Test
  void outbound() {
    String ob = url("OUTBOUND_URL");
    long poster = check.send(url("SOCIAL_GRAPH_URL"), call("createParticipant")
        .json(new JsonObject().put("name", "poster"))).bodyAsJsonObject().getLong("id");
    for (int i = 0; i < 3; i++) {
      HttpResponse<Buffer> posted = check.send(ob, call("postOutbound").id(poster).json(new JsonObject()
          .put("from", "/participant/" + poster).put("subject", "subject " + i).put("story", "story " + i)));
      assertEquals(200, posted.statusCode());
    }
    assertEquals(200, check.send(ob, call("postOutbound").id(poster)
        .json(new JsonObject().put("from", poster).put("subject", "bare id").put("story", "s"))).statusCode());
    for (String bad : List.of("", "not json", "[]", "{}", "{\"subject\":\"s\"}", "{\"story\":\"s\"}",
        "{\"subject\":\"\",\"story\":\"t\"}", "{\"subject\":\" \",\"story\":\"t\"}", "{\"subject\":1,\"story\":\"t\"}",
        "{\"subject\":\"s\",\"story\":[]}", "{\"from\":\"/person/1\",\"subject\":\"s\",\"story\":\"t\"}",
        "{\"from\":\"/participant/" + (poster + 1) + "\",\"subject\":\"s\",\"story\":\"t\"}",
        new JsonObject().put("subject", "s".repeat(501)).put("story", "t").encode(),
        new JsonObject().put("subject", "s").put("story", "t".repeat(10_001)).encode())) {
      assertEquals(400, check.send(ob, call("postOutbound").id(poster).raw(bad)).statusCode(), bad);
    }
    assertEquals(413, check.send(ob, call("postOutbound").id(poster)
        .json(new JsonObject().put("subject", "s").put("story", "x".repeat(70_000)))).statusCode());
    HttpResponse<Buffer> dated = check.send(ob, call("postOutbound").id(poster).json(new JsonObject()
        .put("subject", "dated").put("story", "s").put("occurred", "2026-11-22T15:30:00+01:00")));
    assertEquals(200, dated.statusCode());
    assertEquals("2026-11-22T15:30:00+01:00", dated.bodyAsJsonObject().getString("occurred"));
    assertEquals(400, check.send(ob, call("postOutbound").id(poster).json(new JsonObject()
        .put("subject", "s").put("story", "t").put("occurred", "2026-11-31"))).statusCode());
    assertEquals(415, check.send(ob, call("postOutbound").id(poster).typed("text/csv",
        new JsonObject().put("subject", "s").put("story", "t").encode())).statusCode());
    for (String id : List.of("abc", "0", "-1", "9223372036854775808")) {
      assertEquals(400, check.send(ob, call("postOutbound").id(id)
          .json(new JsonObject().put("subject", "s").put("story", "t"))).statusCode(), id);
      assertEquals(400, check.send(ob, call("getOutbound").id(id)).statusCode(), id);
    }

    HttpResponse<Buffer> page1 = check.send(ob, call("getOutbound").id(poster).query("limit", 3));
    assertEquals(3, page1.bodyAsJsonArray().size());
    String cursor = page1.getHeader("X-Next-Cursor");
    assertNotNull(cursor);
    HttpResponse<Buffer> page2 =
        check.send(ob, call("getOutbound").id(poster).query("limit", 3).query("cursor", cursor));
    assertEquals(2, page2.bodyAsJsonArray().size());
    assertNull(page2.getHeader("X-Next-Cursor"));
    assertEquals(404, check.send(ob, call("getOutbound").id(UNKNOWN_ID)).statusCode());
    assertEquals(404, check.send(ob, call("postOutbound").id(UNKNOWN_ID)
        .json(new JsonObject().put("subject", "s").put("story", "t"))).statusCode());
    for (String[] q : new String[][] {{"limit", "0"}, {"limit", "101"}, {"limit", "x"}, {"cursor", "nope"}}) {
      assertEquals(400, check.send(ob, call("getOutbound").id(poster).query(q[0], q[1])).statusCode(),
          q[0] + "=" + q[1]);
    }
    operations(ob);
    assertEquals(200, check.send(ob, call("events")).statusCode(), ob);
  }

  @Test
  void inboundAndSearch() throws Exception {
    String sg = url("SOCIAL_GRAPH_URL");
    String ob = url("OUTBOUND_URL");
    String ib = url("INBOUND_URL");
    String search = url("SEARCH_URL");
    long poster = check.send(sg, call("createParticipant").json(new JsonObject().put("name", "poster")))
        .bodyAsJsonObject().getLong("id");
    long reader = check.send(sg, call("createParticipant").json(new JsonObject().put("name", "reader")))
        .bodyAsJsonObject().getLong("id");
    check.send(sg, call("befriend").id(reader).json(new JsonObject().put("to", poster)));
    assertEquals(new JsonArray(), check.send(ib, call("getInbound").id(reader)).bodyAsJsonArray(), "nothing yet");
    String word = word();
    for (int i = 0; i < 2; i++) {
      check.send(ob, call("postOutbound").id(poster)
          .json(new JsonObject().put("subject", "hello " + word).put("story", "story " + i + " " + word)));
    }

    eventually(() -> check.send(ib, call("getInbound").id(reader)).bodyAsJsonArray(), a -> a.size() == 2);
    HttpResponse<Buffer> page1 = check.send(ib, call("getInbound").id(reader).query("limit", 1));
    String cursor = page1.getHeader("X-Next-Cursor");
    assertNotNull(cursor);
    HttpResponse<Buffer> page2 =
        check.send(ib, call("getInbound").id(reader).query("limit", 1).query("cursor", cursor));
    assertEquals(1, page2.bodyAsJsonArray().size());
    assertEquals(404, check.send(ib, call("getInbound").id(UNKNOWN_ID)).statusCode());
    for (String[] q : new String[][] {{"limit", "0"}, {"limit", "101"}, {"cursor", "nope"}}) {
      assertEquals(400, check.send(ib, call("getInbound").id(reader).query(q[0], q[1])).statusCode(),
          q[0] + "=" + q[1]);
    }
    assertEquals(400, check.send(ib, call("getInbound").id("abc")).statusCode());
    operations(ib);
    assertEquals(200, check.send(ib, call("events")).statusCode(), ib);

    // both posts indexed: the two events may reach Solr in different batches, so one alone can be searchable first
    eventually(() -> check.send(search, call("searchOutbound").query("keywords", word).query("posts", true))
        .bodyAsJsonArray(), a -> a.size() == 2);
    assertEquals(new JsonArray().add("/participant/" + poster),
        check.send(search, call("searchOutbound").query("keywords", word)).bodyAsJsonArray());
    assertEquals(1, check.send(search, call("searchOutbound").query("keywords", word).query("posts", true)
        .query("limit", 1)).bodyAsJsonArray().size());
    assertEquals(new JsonArray(), check.send(search, call("searchOutbound").query("keywords", word())
        .query("posts", false)).bodyAsJsonArray());
    assertEquals(400, check.send(search, call("searchOutbound")).statusCode(), "keywords missing");
    for (String[] q : new String[][] {{"keywords", ""}, {"keywords", "   "}, {"keywords", "k".repeat(201)}}) {
      assertEquals(400, check.send(search, call("searchOutbound").query(q[0], q[1])).statusCode(), q[1]);
    }
    for (String[] q : new String[][] {{"limit", "0"}, {"limit", "101"}, {"posts", "maybe"}}) {
      assertEquals(400, check.send(search, call("searchOutbound").query("keywords", word).query(q[0], q[1]))
          .statusCode(), q[0] + "=" + q[1]);
    }
    operations(search);
    assertEquals(200, check.send(search, call("events")).statusCode(), search);
  }

  @Test
  void edge() {
    String edge = url("EDGE_URL");
    HttpResponse<Buffer> created = check.send(edge, graphql(
        "mutation { createParticipant(input: {name: \"Gia\"}) { id, name, link } }"));
    assertEquals(200, created.statusCode());
    JsonObject gia = created.bodyAsJsonObject().getJsonObject("data").getJsonObject("createParticipant");
    assertEquals("/participant/" + gia.getString("id"), gia.getString("link"));
    HttpResponse<Buffer> read = check.send(edge, graphql("query { participant(id: " + gia.getString("id")
        + ") { name, friends { id }, inbound { subject }, outbound { subject } } }"));
    assertEquals(200, read.statusCode());
    assertEquals(new JsonObject().put("name", "Gia").put("friends", new JsonArray()).put("inbound", new JsonArray())
        .put("outbound", new JsonArray()), read.bodyAsJsonObject().getJsonObject("data").getJsonObject("participant"));
    assertEquals(404, check.send(edge, graphql("query { participant(id: " + UNKNOWN_ID + ") { name } }"))
        .statusCode());
    for (String bad : List.of("", "not json", "[]", "{}", "{\"query\":\"query {\"}",
        "{\"query\":\"query { participant(id: 1) { nickname } }\"}",
        "{\"query\":\"mutation { createParticipant(input: {name: \\\"\\\"}) { id } }\"}")) {
      assertEquals(400, check.send(edge, call("graphql").raw(bad)).statusCode(), bad);
    }
    assertEquals(413, check.send(edge, graphql("query { posters(keywords: \"" + "x".repeat(140_000) + "\") { id } }"))
        .statusCode());
    assertEquals(415, check.send(edge, call("graphql").form("query=x")).statusCode());
    // the same request at the root path, and a query in the URL
    HttpResponse<Buffer> atRoot = check.send(edge, call("graphqlRoot").json(new JsonObject().put("query",
        "query { participant(id: " + gia.getString("id") + ") { name } }")));
    assertEquals("Gia", atRoot.bodyAsJsonObject().getJsonObject("data").getJsonObject("participant")
        .getString("name"));
    HttpResponse<Buffer> inUrl = check.send(edge, call("graphqlGet").query("query",
        "query($id: ID!) { participant(id: $id) { name } }").query("variables",
            new JsonObject().put("id", gia.getString("id")).encode()));
    assertEquals("Gia", inUrl.bodyAsJsonObject().getJsonObject("data").getJsonObject("participant")
        .getString("name"));
    HttpResponse<Buffer> mutation = check.send(edge, call("graphqlGet").query("query",
        "mutation { createParticipant(input: {name: \"Get\"}) { id } }"));
    assertEquals(405, mutation.statusCode());
    assertEquals("GET, POST", mutation.getHeader("Allow"));
    assertEquals(400, check.send(edge, call("graphqlGet").query("variables", "{}")).statusCode());
    assertEquals(414, check.send(edge, call("graphqlGet").query("query", "{ " + "x".repeat(5_000) + " }"))
        .statusCode());
    operations(edge);
  }

  private static OpenApiCheck.Call graphql(String query) {
    return call("graphql").json(new JsonObject().put("query", query));
  }

  /** /health/live, /health/ready and /metrics of one service. */
  private static void operations(String base) {
    assertEquals(200, check.send(base, call("live")).statusCode(), base);
    assertEquals(200, check.send(base, call("ready")).statusCode(), base);
    HttpResponse<Buffer> metrics = check.send(base, call("metrics"));
    assertEquals(200, metrics.statusCode());
    assertTrue(metrics.bodyAsString().contains("newsfeed_http_server_requests_seconds"), base);
  }
}
