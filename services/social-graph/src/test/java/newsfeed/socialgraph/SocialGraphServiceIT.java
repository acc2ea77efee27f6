package newsfeed.socialgraph;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The social-graph service on the running stack's PostgreSQL and Redis: participants, symmetric and idempotent
 * friendships, the cache (filled, hit, invalidated by writes), paging, health and metrics.
 */
class SocialGraphServiceIT {
  @RegisterExtension
  static final ServiceOnStack stack = new ServiceOnStack();

  private static String unique(String what) {
    return what + " " + UUID.randomUUID();
  }

  @Test
  void aParticipantIsCreatedAndReadBackFromTheStoreThenFromTheCache() throws Exception {
    String name = unique("Zoë 🙂 '; DROP TABLE participant; --");
    // a classic client may send id and link as well: ignored, the store assigns the id
    HttpResponse<Buffer> created = stack.service().post("/participant",
        new JsonObject().put("name", name).put("id", 1).put("link", "/participant/1"));
    assertEquals(200, created.statusCode(), created.bodyAsString());
    JsonObject body = created.bodyAsJsonObject();
    long id = body.getLong("id");
    assertEquals(name, body.getString("name"));
    assertEquals("/participant/" + id, body.getString("link"));
    assertEquals("/participant/" + id, created.getHeader("Location"));
    assertEquals("application/json", created.getHeader("Content-Type"));
    assertEquals(1, stack.stores().count("SELECT count(*) FROM participant WHERE id = $1 AND name = $2", id, name));

    String hits = "newsfeed_cache_requests_total{cache=\"participant\",result=\"hit\",service=\"social-graph\"}";
    double hitsBefore = stack.service().metric(hits);
    for (int i = 0; i < 2; i++) {
      HttpResponse<Buffer> read = stack.service().get("/participant/" + id);
      assertEquals(200, read.statusCode(), read.bodyAsString());
      assertEquals(body, read.bodyAsJsonObject());
    }
    assertEquals(name, stack.stores().redisGetEventually(GraphCache.participantKey(id)),
        "the first read filled the cache");
    assertEquals(hitsBefore + 1, stack.service().metric(hits), "the second read was a cache hit");
  }

  @Test
  void classicFormsAndBodiesWithoutAContentTypeCreateLikeJson() {
    String name = unique("Zoë + friends & co");
    String form = "application/x-www-form-urlencoded";
    HttpResponse<Buffer> created = stack.service().post("/participant", form,
        "name=" + URLEncoder.encode(name, StandardCharsets.UTF_8));
    assertEquals(200, created.statusCode(), created.bodyAsString());
    JsonObject participant = created.bodyAsJsonObject();
    long a = participant.getLong("id");
    assertEquals(name, participant.getString("name"));
    assertEquals("/participant/" + a, created.getHeader("Location"));
    assertEquals(1, stack.stores().count("SELECT count(*) FROM participant WHERE id = $1 AND name = $2", a, name));

    String other = unique("no content type");
    HttpResponse<Buffer> untyped = stack.service().post("/participant", null,
        new JsonObject().put("name", other).encode());
    assertEquals(200, untyped.statusCode(), untyped.bodyAsString());
    long b = untyped.bodyAsJsonObject().getLong("id");
    assertEquals(other, untyped.bodyAsJsonObject().getString("name"));
    HttpResponse<Buffer> typed = stack.service().post("/participant", "Application/JSON; charset=UTF-8",
        new JsonObject().put("name", other).encode());
    assertEquals(200, typed.statusCode(), typed.bodyAsString());

    // the classic client's friendship form: both ends as links
    HttpResponse<Buffer> befriended = stack.service().post("/participant/" + a + "/friends", form,
        "from=%2Fparticipant%2F" + a + "&to=%2Fparticipant%2F" + b);
    assertEquals(200, befriended.statusCode(), befriended.bodyAsString());
    assertEquals("/participant/" + a, befriended.bodyAsJsonObject().getString("from"));
    assertEquals("/participant/" + b, befriended.bodyAsJsonObject().getString("to"));
    assertEquals(1, friends(a).size());
    assertEquals(1, friends(b).size());
  }

  @Test
  void unknownParticipantsAre404InJson() {
    long unknown = Long.MAX_VALUE - 11;
    long known = stack.service().createParticipant(unique("known"));
    List<HttpResponse<Buffer>> answers = List.of(
        stack.service().get("/participant/" + unknown),
        stack.service().get("/participant/" + unknown + "/friends"),
        stack.service().befriend(unknown, known),
        stack.service().befriend(known, unknown));
    for (HttpResponse<Buffer> resp : answers) {
      assertEquals(404, resp.statusCode(), resp.bodyAsString());
      assertEquals("application/json", resp.getHeader("Content-Type"));
      assertEquals("participant_not_found", resp.bodyAsJsonObject().getString("error"));
      assertTrue(resp.bodyAsJsonObject().getString("message").contains(Long.toString(unknown)));
    }
    assertEquals(0, stack.stores().count("SELECT count(*) FROM friendship WHERE from_id = $1 OR to_id = $1", known));
    assertEquals(200, stack.service().get("/participant/" + known + "/friends").statusCode());
    assertEquals(new JsonArray(), stack.service().get("/participant/" + known + "/friends").bodyAsJsonArray());
  }

  @Test
  void friendshipIsSymmetricAndADuplicateIsIdempotent() {
    long a = stack.service().createParticipant(unique("a"));
    long b = stack.service().createParticipant(unique("b"));

    HttpResponse<Buffer> created = stack.service().befriend(a, b);
    assertEquals(200, created.statusCode(), created.bodyAsString());
    JsonObject friend = created.bodyAsJsonObject();
    assertEquals("/participant/" + a, friend.getString("from"));
    assertEquals("/participant/" + b, friend.getString("to"));
    long rowId = friend.getLong("id");

    JsonArray ofA = friends(a);
    JsonArray ofB = friends(b);
    assertEquals(new JsonArray().add(friend), ofA);
    assertEquals(1, ofB.size());
    assertEquals("/participant/" + b, ofB.getJsonObject(0).getString("from"));
    assertEquals("/participant/" + a, ofB.getJsonObject(0).getString("to"));
    assertNotEquals(rowId, ofB.getJsonObject(0).getLong("id"), "each direction is its own row");

    // the same again, and from the other side (with a bare id and no `from`, also accepted): no new row
    HttpResponse<Buffer> again = stack.service().befriend(a, b);
    assertEquals(200, again.statusCode(), again.bodyAsString());
    assertEquals(friend, again.bodyAsJsonObject());
    HttpResponse<Buffer> reverse = stack.service().post("/participant/" + b + "/friends",
        new JsonObject().put("to", a));
    assertEquals(200, reverse.statusCode(), reverse.bodyAsString());
    assertEquals(ofB.getJsonObject(0), reverse.bodyAsJsonObject());
    assertEquals(2, stack.stores().count("SELECT count(*) FROM friendship WHERE from_id IN ($1, $2)", a, b));
    assertEquals(ofA, friends(a));
    assertEquals(ofB, friends(b));
  }

  @Test
  void concurrentRequestsForOnePairFromBothSidesMakeExactlyTwoRows() {
    WebClient http = WebClient.create(stack.vertx());
    List<long[]> pairs = new ArrayList<>();
    List<Future<HttpResponse<Buffer>>> sent = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      long a = stack.service().createParticipant(unique("race a"));
      long b = stack.service().createParticipant(unique("race b"));
      pairs.add(new long[] {a, b});
      for (int k = 0; k < 3; k++) {
        sent.add(http.post(stack.service().port, "127.0.0.1", "/participant/" + a + "/friends")
            .sendJsonObject(new JsonObject().put("to", "/participant/" + b)));
        sent.add(http.post(stack.service().port, "127.0.0.1", "/participant/" + b + "/friends")
            .sendJsonObject(new JsonObject().put("to", "/participant/" + a)));
      }
    }
    Future.all(sent).await();
    for (Future<HttpResponse<Buffer>> f : sent) {
      assertEquals(200, f.result().statusCode(), f.result().bodyAsString());
    }
    // every request answered the friendship; the rows show it was created once per pair
    for (long[] p : pairs) {
      assertEquals(2, stack.stores().count("SELECT count(*) FROM friendship WHERE from_id IN ($1, $2)", p[0], p[1]));
      assertEquals(1, friends(p[0]).size());
      assertEquals(1, friends(p[1]).size());
    }
    http.close();
  }

  @Test
  void aNewFriendshipInvalidatesBothCachedLists() throws Exception {
    long a = stack.service().createParticipant(unique("a"));
    long b = stack.service().createParticipant(unique("b"));
    long c = stack.service().createParticipant(unique("c"));
    assertEquals(200, stack.service().befriend(a, b).statusCode());

    String hits = "newsfeed_cache_requests_total{cache=\"friends\",result=\"hit\",service=\"social-graph\"}";
    assertEquals(1, friends(a).size());
    assertEquals(0, friends(c).size());
    assertNotNull(stack.stores().redisGetEventually(GraphCache.friendsKey(a)), "the read filled the cache");
    assertNotNull(stack.stores().redisGetEventually(GraphCache.friendsKey(c)), "an empty list is cached too");
    double hitsBefore = stack.service().metric(hits);
    assertEquals(1, friends(a).size());
    assertEquals(0, friends(c).size());
    assertEquals(hitsBefore + 2, stack.service().metric(hits), "both second reads came from the cache");

    assertEquals(200, stack.service().befriend(c, a).statusCode());
    assertNull(stack.stores().redisGet(GraphCache.friendsKey(a)), "the write removed a's list");
    assertNull(stack.stores().redisGet(GraphCache.friendsKey(c)), "and c's");
    assertEquals(Set.of(b, c), friendIds(friends(a)));
    assertEquals(Set.of(a), friendIds(friends(c)));
    assertEquals(Set.of(a), friendIds(friends(b)));
  }

  @Test
  void friendListsArePagedByFriendIdWithACursor() {
    long p = stack.service().createParticipant(unique("popular"));
    List<Long> expected = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      long f = stack.service().createParticipant(unique("fan " + i));
      assertEquals(200, stack.service().befriend(f, p).statusCode());
      expected.add(f);
    }
    // twice: once filling the cache from PostgreSQL, once from the cache
    for (int round = 0; round < 2; round++) {
      List<Long> seen = new ArrayList<>();
      String cursor = null;
      int pages = 0;
      do {
        HttpResponse<Buffer> page = stack.service().get("/participant/" + p + "/friends?limit=2"
            + (cursor == null ? "" : "&cursor=" + cursor));
        assertEquals(200, page.statusCode(), page.bodyAsString());
        assertTrue(page.bodyAsJsonArray().size() <= 2);
        page.bodyAsJsonArray().forEach(o -> seen.add(idOf(((JsonObject) o).getString("to"))));
        cursor = page.getHeader("X-Next-Cursor");
        pages++;
      } while (cursor != null);
      assertEquals(expected, seen, "round " + round);
      assertEquals(3, pages);
    }
    assertEquals(5, friends(p).size(), "without a limit the whole list comes back");
    assertNull(stack.service().get("/participant/" + p + "/friends").getHeader("X-Next-Cursor"));
  }

  @Test
  void healthAndMetricsAreServed() {
    assertEquals(200, stack.service().get("/health/live").statusCode());
    HttpResponse<Buffer> ready = stack.service().get("/health/ready");
    assertEquals(200, ready.statusCode(), ready.bodyAsString());
    assertEquals("UP", ready.bodyAsJsonObject().getJsonObject("checks").getString("postgresql"));

    long a = stack.service().createParticipant(unique("metrics a"));
    long b = stack.service().createParticipant(unique("metrics b"));
    stack.service().befriend(a, b);
    stack.service().get("/participant/" + a);
    stack.service().get("/participant/" + a + "/friends");
    String metrics = stack.service().get("/metrics").bodyAsString();
    String sg = "service=\"social-graph\"";
    for (String series : new String[] {
        "newsfeed_http_server_requests_seconds_count{method=\"POST\",route=\"/participant\"," + sg + ",status=\"200\"}",
        "newsfeed_http_server_requests_seconds_count{method=\"GET\",route=\"/participant/:id/friends\"," + sg
            + ",status=\"200\"}",
        "newsfeed_operation_seconds_bucket{entity=\"participant\",operation=\"store\",outcome=\"success\"," + sg
            + ",le=\"0.005\"}",
        "newsfeed_operation_seconds_count{entity=\"participant\",operation=\"load\",outcome=\"success\"," + sg + "}",
        "newsfeed_operation_seconds_count{entity=\"friends\",operation=\"store\",outcome=\"success\"," + sg + "}",
        "newsfeed_operation_seconds_count{entity=\"friends\",operation=\"load\",outcome=\"success\"," + sg + "}",
        "newsfeed_store_client_seconds_count{operation=\"query\",outcome=\"success\"," + sg + ",store=\"postgresql\"}",
        "newsfeed_store_client_seconds_count{operation=\"get\",outcome=\"success\"," + sg + ",store=\"redis\"}",
        "newsfeed_store_client_seconds_count{operation=\"delete\",outcome=\"success\"," + sg + ",store=\"redis\"}",
        "newsfeed_cache_requests_total{cache=\"friends\",result=\"miss\"," + sg + "}",
        "newsfeed_cache_requests_total{cache=\"participant\",result=\"miss\"," + sg + "}"}) {
      assertTrue(metrics.contains(series + " "), series + " missing in\n" + metrics);
    }
  }

  private static JsonArray friends(long id) {
    HttpResponse<Buffer> resp = stack.service().get("/participant/" + id + "/friends");
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    return resp.bodyAsJsonArray();
  }

  private static Set<Long> friendIds(JsonArray friends) {
    Set<Long> ids = new HashSet<>();
    friends.forEach(o -> ids.add(idOf(((JsonObject) o).getString("to"))));
    return ids;
  }

  static long idOf(String link) {
    return Long.parseLong(link.substring("/participant/".length()));
  }
}
