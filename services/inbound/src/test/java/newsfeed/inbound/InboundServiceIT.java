package newsfeed.inbound;

import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.events.OutboundRetractedEvent;
import newsfeed.common.redis.RedisStore;
import newsfeed.common.testing.ConsumerHealth;
import newsfeed.common.testing.ConsumerOnStack;
import newsfeed.common.testing.SocialGraphApi;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.TestEvents;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import newsfeed.common.config.Env;
import newsfeed.common.http.FeedCursor;
import newsfeed.common.http.FeedPage;
import newsfeed.common.metrics.ServiceMetrics;
import newsfeed.common.kafka.ConsumerTuning;
import newsfeed.common.redis.RedisConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static newsfeed.common.testing.Waiting.eventually;
import static newsfeed.common.testing.Waiting.freePort;

/**
 * The whole inbound service on real Kafka and Cassandra, with friendships from the running social-graph service
 * (SOCIAL_GRAPH_URL): fan-out to every friend, no duplicate on redelivery, no skipped event while social-graph is
 * unreachable, paging and the 400/404 answers; the first-page cache in Redis: filled by a read, served, written
 * through by fan-out, never answering with a page stamped before the last write, and bypassed while Redis is away.
 */
class InboundServiceIT {
  @RegisterExtension
  static final ConsumerOnStack stack = new ConsumerOnStack("it-inbound");
  private static Redis redis;
  private static SocialGraphApi socialGraph;
  private static String deploymentId;

  @BeforeAll
  static void start() {
    redis = Redis.createClient(stack.vertx(), StackEnv.get("REDIS_URL"));
    socialGraph = new SocialGraphApi(stack.http(), StackEnv.get("SOCIAL_GRAPH_URL"));
    deploymentId = deploy(StackEnv.get("SOCIAL_GRAPH_URL"), StackEnv.get("REDIS_URL"));
  }

  private static String deploy(String socialGraphUrl, String redisUrl) {
    InboundConfig config = new InboundConfig("127.0.0.1", stack.port(), Duration.ofSeconds(5), 0,
        TestCassandra.config(StackEnv.get("CASSANDRA_CONTACT_POINTS")),
        // the default fetches (the broker holds them up to 20 ms to fill 16 KiB): every feed must still be reached
        stack.consumerConfig(ConsumerTuning.fromEnv(new Env(Map.of()))),
        socialGraphUrl, 16, 256, 10,
        RedisConfig.fromEnv(new Env(Map.of("REDIS_URL", redisUrl, "REDIS_TIMEOUT_MS", "200"))), Duration.ofSeconds(60));
    return stack.vertx().deployVerticle(new InboundVerticle(config, ServiceMetrics.create("inbound"))).await();
  }

  /** The service again with other endpoints (the same port, topic and group). */
  private static void redeploy(String socialGraphUrl, String redisUrl) {
    stack.vertx().undeploy(deploymentId).await();
    deploymentId = deploy(socialGraphUrl, redisUrl);
  }

  @Test
  void aPostReachesEveryFriendOnceEvenWhenRedelivered() throws Exception {
    long poster = socialGraph.createParticipant("poster");
    long friend1 = socialGraph.createParticipant("friend one");
    long friend2 = socialGraph.createParticipant("friend two");
    long stranger = socialGraph.createParticipant("stranger");
    socialGraph.befriend(poster, friend1);
    socialGraph.befriend(friend2, poster);

    UUID eventId = TestEvents.timeUuid();
    stack.publish(eventId, poster, "hello", "first post");
    for (long friend : List.of(friend1, friend2)) {
      JsonArray feed = eventually(() -> inbound(friend, ""), a -> a.size() == 1);
      JsonObject row = feed.getJsonObject(0);
      assertEquals("/participant/" + poster, row.getString("from"));
      assertEquals("/participant/" + friend, row.getString("to"));
      assertEquals("hello", row.getString("subject"));
      assertEquals("first post", row.getString("story"));
    }

    // redelivery of the same event, then a marker event behind it on the same partition
    stack.publish(eventId, poster, "hello", "first post");
    stack.publish(TestEvents.timeUuid(), poster, "marker", "second post");
    for (long friend : List.of(friend1, friend2)) {
      JsonArray feed = eventually(() -> inbound(friend, ""), a -> a.size() >= 2);
      assertEquals(2, feed.size(), "the redelivered post must not appear twice: " + feed);
      assertEquals("marker", feed.getJsonObject(0).getString("subject"), "newest first");
    }
    // an event of the wrong shape goes to the group's dead-letter topic; the partition goes on behind it
    String malformed = TestEvents.json(TestEvents.timeUuid(), poster, "x", "y").put("subject", 5).encode();
    stack.publishRaw(Long.toString(poster), malformed);
    stack.publish(TestEvents.timeUuid(), poster, "after", "third post");
    for (long friend : List.of(friend1, friend2)) {
      eventually(() -> inbound(friend, ""), a -> a.size() == 3);
    }
    List<ConsumerRecord<String, String>> dead = stack.deadLettered(1, Duration.ofSeconds(20));
    assertEquals(List.of(malformed), dead.stream().map(ConsumerRecord::value).toList());
    assertEquals(0, inbound(poster, "").size(), "the poster's own feed gets nothing");
    assertEquals(0, inbound(stranger, "").size(), "a non-friend gets nothing");

    // paging: one row per page, the cursor leads to the older one, the last page has no cursor
    HttpResponse<Buffer> page1 = get("/participant/" + friend1 + "/inbound?limit=1");
    String cursor = page1.getHeader("X-Next-Cursor");
    assertNotNull(cursor);
    assertEquals("after", page1.bodyAsJsonArray().getJsonObject(0).getString("subject"));
    HttpResponse<Buffer> page2 = get("/participant/" + friend1 + "/inbound?limit=1&cursor=" + cursor);
    assertEquals("marker", page2.bodyAsJsonArray().getJsonObject(0).getString("subject"));
    HttpResponse<Buffer> page3 = get("/participant/" + friend1 + "/inbound?limit=1&cursor="
        + page2.getHeader("X-Next-Cursor"));
    assertEquals("hello", page3.bodyAsJsonArray().getJsonObject(0).getString("subject"));
    assertNull(page3.getHeader("X-Next-Cursor"));

    eventually(() -> uncommitted(), n -> n == 0);
    String metrics = get("/metrics").bodyAsString();
    assertTrue(metrics.contains("newsfeed_fanout_delay_seconds_count{service=\"inbound\"}"), metrics);
    assertTrue(metrics.contains("newsfeed_store_client_seconds_bucket{operation=\"execute\",outcome=\"success\","
        + "service=\"inbound\",store=\"cassandra\""), metrics);
    assertTrue(metrics.contains("newsfeed_http_server_requests_seconds_count{method=\"GET\","
        + "route=\"/participant/:id/inbound\",service=\"inbound\",status=\"200\"}"), metrics);
  }

  @Test
  void aRetractedPostLeavesEveryFeedInWhateverOrderAndARetryWrittenLaterStays() throws Exception {
    long poster = socialGraph.createParticipant("poster");
    List<Long> friends = List.of(socialGraph.createParticipant("friend one"), socialGraph.createParticipant("two"));
    for (long friend : friends) {
      socialGraph.befriend(poster, friend);
    }
    // a post whose client was answered 503: fanned out, then retracted (its feeds' first pages are cached)
    OutboundPostedEvent post = new OutboundPostedEvent(TestEvents.timeUuid(), poster, "retracted", "t",
        System.currentTimeMillis());
    stack.publish(post);
    for (long friend : friends) {
      eventually(() -> subjects(friend), s -> s.equals(List.of("retracted")));
    }
    stack.publish(new OutboundRetractedEvent(post.eventId(), poster, post.writtenMicros() + 1));
    publishMarker(poster, "marker one");
    for (long friend : friends) {
      eventually(() -> subjects(friend), s -> s.equals(List.of("marker one")));
    }
    // delivered again after its retraction (a replay): still hidden
    stack.publish(post);
    publishMarker(poster, "marker two");
    // the retraction before the post it cancels: the post never shows
    OutboundPostedEvent early = new OutboundPostedEvent(TestEvents.timeUuid(), poster, "never shown", "t",
        System.currentTimeMillis());
    stack.publish(new OutboundRetractedEvent(early.eventId(), poster, early.writtenMicros() + 1));
    stack.publish(early);
    publishMarker(poster, "marker three");
    for (long friend : friends) {
      eventually(() -> subjects(friend), s -> s.equals(List.of("marker three", "marker two", "marker one")));
    }
    // a retry with the same Idempotency-Key made the post after all, written after the retraction: it stays
    stack.publish(post.writtenAt(post.writtenMicros() + 2));
    for (long friend : friends) {
      eventually(() -> subjects(friend),
          s -> s.equals(List.of("marker three", "marker two", "marker one", "retracted")));
    }
    assertTrue(
        get("/metrics").bodyAsString().contains("newsfeed_events_total{event=\"retracted\",service=\"inbound\"} 2.0"));
  }

  private static void publishMarker(long poster, String subject) throws Exception {
    stack.publish(new OutboundPostedEvent(TestEvents.timeUuid(), poster, subject, "marker",
        System.currentTimeMillis()));
  }

  private static List<String> subjects(long participant) {
    JsonArray feed = inbound(participant, "");
    return feed.stream().map(o -> ((JsonObject) o).getString("subject")).toList();
  }

  @Test
  void nothingIsSkippedOrCommittedWhileSocialGraphIsUnreachable() throws Exception {
    long poster = socialGraph.createParticipant("poster during outage");
    long friend = socialGraph.createParticipant("friend during outage");
    socialGraph.befriend(poster, friend);

    redeploy("http://127.0.0.1:1", StackEnv.get("REDIS_URL"));   // nothing listens there: every friends lookup fails
    long before = uncommitted();
    stack.publish(TestEvents.timeUuid(), poster, "during outage", "kept");
    Thread.sleep(4_000);
    assertEquals(0, inbound(friend, "").size());
    assertEquals(before + 1, uncommitted(), "the failed event must stay uncommitted");
    String metrics = get("/metrics").bodyAsString();
    assertTrue(metrics.contains("newsfeed_events_total{event=\"failed\",service=\"inbound\"}"), metrics);

    redeploy(StackEnv.get("SOCIAL_GRAPH_URL"), StackEnv.get("REDIS_URL"));
    JsonArray feed = eventually(() -> inbound(friend, ""), a -> a.size() == 1);
    assertEquals("during outage", feed.getJsonObject(0).getString("subject"));
    eventually(() -> uncommitted(), n -> n == 0);
  }

  @Test
  void badInputIs400UnknownParticipantIs404() {
    for (String uri : new String[] {"/participant/abc/inbound", "/participant/0/inbound",
        "/participant/-3/inbound", "/participant/1/inbound?limit=0", "/participant/1/inbound?limit=101",
        "/participant/1/inbound?limit=x", "/participant/1/inbound?cursor=nope", "/participant/1/inbound?cursor="
            + "AAAAAAAAAAAAAAAAAAAAAA"}) {
      HttpResponse<Buffer> resp = get(uri);
      assertEquals(400, resp.statusCode(), uri);
      assertEquals(400, resp.bodyAsJsonObject().getInteger("status"), uri);
    }
    HttpResponse<Buffer> unknown = get("/participant/" + (Long.MAX_VALUE - 7) + "/inbound");
    assertEquals(404, unknown.statusCode(), unknown.bodyAsString());
    assertEquals("application/json", unknown.getHeader("Content-Type"));
    ConsumerHealth.assertUp(InboundServiceIT::get, "cassandra");
  }

  @Test
  void aFirstPageIsCachedServedFromRedisAndWrittenThroughByTheNextFanOut() throws Exception {
    long poster = socialGraph.createParticipant("cached poster");
    long reader = socialGraph.createParticipant("cached reader");
    socialGraph.befriend(poster, reader);
    stack.publish(TestEvents.timeUuid(), poster, "one", "first");
    eventually(() -> inbound(reader, ""), a -> a.size() == 1);
    String key = FeedCache.key(reader);
    redisCall(Request.cmd(Command.DEL).arg(key));

    HttpResponse<Buffer> miss = get("/participant/" + reader + "/inbound");
    assertEquals(200, miss.statusCode(), miss.bodyAsString());
    List<String> cached = eventually(() -> members(key), m -> !m.isEmpty());
    assertEquals(FeedCache.STAMP, cached.get(0), "the stamp sorts first: " + cached);
    long stamp = stamp(key);
    assertEquals(new FeedPage.Body(miss.bodyAsString(), null), FeedCache.decode(cached.subList(1, cached.size()), 20),
        "the page is cached as it was sent: " + cached);
    assertEquals(miss.bodyAsString(), get("/participant/" + reader + "/inbound?limit=20").bodyAsString());

    // a hit is served from Redis as it stands: replace the page (same stamp, 21 rows) and see it come back
    List<InboundItem> marked = new ArrayList<>();
    for (int i = 21; i >= 1; i--) {
      marked.add(new InboundItem(reader, TestEvents.timeUuidAt(i, 1), poster, null, "from the cache " + i, "s"));
    }
    replacePage(key, stamp, marked);
    HttpResponse<Buffer> hit = get("/participant/" + reader + "/inbound");
    assertEquals(FeedPage.render(marked, 20).json(), hit.bodyAsString());
    assertEquals(FeedCursor.encode(marked.get(19).occurred()), hit.getHeader("X-Next-Cursor"));
    assertEquals("application/json", hit.getHeader("Content-Type"));
    assertEquals(1, inbound(reader, "").size(), "other page sizes are read from Cassandra");

    // fan-out adds the new post to the cached page (which Cassandra does not hold): it stays cached, its oldest
    // row pushed past the page
    stack.publish(TestEvents.timeUuid(), poster, "two", "second");
    HttpResponse<Buffer> written = eventually(() -> get("/participant/" + reader + "/inbound"),
        r -> r.bodyAsJsonArray().getJsonObject(0).getString("subject").equals("two"));
    List<String> subjects = written.bodyAsJsonArray().stream().map(o -> ((JsonObject) o).getString("subject"))
        .toList();
    assertEquals(20, subjects.size());
    assertEquals("from the cache 21", subjects.get(1));
    assertEquals("from the cache 3", subjects.get(19));
    assertEquals(FeedCursor.encode(marked.get(18).occurred()), written.getHeader("X-Next-Cursor"));
    assertEquals(22, members(key).size(), "the stamp and 21 rows");

    // the write was counted in the page's stamp and the feed's generation
    assertEquals(stamp + 1, stamp(key));
    assertEquals(Long.toString(stamp + 1), redisGet(FeedCache.generationKey(reader)));
    // a page stamped one write short (a slow reader's fill after a write) is never served
    replacePage(key, stamp, marked);
    assertEquals(List.of("two", "one"), subjects(reader));

    String metrics = get("/metrics").bodyAsString();
    assertTrue(metrics.contains("newsfeed_cache_requests_total{cache=\"inbound\",result=\"hit\",service=\"inbound\"}"),
        metrics);
  }

  @Test
  void withoutRedisFeedsAreReadFromCassandraAndFanOutGoesOn() throws Exception {
    long poster = socialGraph.createParticipant("poster without cache");
    long reader = socialGraph.createParticipant("reader without cache");
    socialGraph.befriend(poster, reader);

    redeploy(StackEnv.get("SOCIAL_GRAPH_URL"), "redis://127.0.0.1:" + freePort());
    try {
      stack.publish(TestEvents.timeUuid(), poster, "no cache", "still delivered");
      JsonArray feed = eventually(() -> get("/participant/" + reader + "/inbound").bodyAsJsonArray(),
          a -> a.size() == 1);
      assertEquals("no cache", feed.getJsonObject(0).getString("subject"));
      eventually(() -> uncommitted(), n -> n == 0);
      assertEquals(200, get("/health/ready").statusCode(), "Redis is not a readiness dependency");
      String metrics = get("/metrics").bodyAsString();
      assertTrue(metrics.contains("newsfeed_cache_errors_total{cache=\"inbound\""), metrics);
    } finally {
      redeploy(StackEnv.get("SOCIAL_GRAPH_URL"), StackEnv.get("REDIS_URL"));
    }
    // back on Redis: the invalidation missed while it was away cannot leave an old page behind (none was cached)
    assertEquals(1, get("/participant/" + reader + "/inbound").bodyAsJsonArray().size());
  }

  private static List<String> members(String key) {
    List<String> members = new ArrayList<>();
    redisCall(Request.cmd(Command.ZRANGE).arg(key).arg(0).arg(-1).arg("REV")).forEach(m -> members.add(m.toString()));
    return members;
  }

  private static long stamp(String key) {
    return (long) Double.parseDouble(redisCall(Request.cmd(Command.ZSCORE).arg(key).arg(FeedCache.STAMP)).toString());
  }

  private static void replacePage(String key, long stamp, List<InboundItem> rows) {
    Request add = Request.cmd(Command.ZADD).arg(key).arg(stamp).arg(FeedCache.STAMP);
    rows.forEach(r -> add.arg(0).arg(FeedCache.member(r)));
    redisCall(Request.cmd(Command.DEL).arg(key));
    redisCall(add);
    redisCall(Request.cmd(Command.EXPIRE).arg(key).arg(60));
  }

  private static Response redisCall(Request request) {
    return redis.send(request).await();
  }

  private static String redisGet(String key) {
    return RedisStore.string(redisCall(Request.cmd(Command.GET).arg(key)));
  }

  private static JsonArray inbound(long participant, String query) {
    HttpResponse<Buffer> resp = get("/participant/" + participant + "/inbound?limit=100" + query);
    if (resp.statusCode() != 200) {
      throw new IllegalStateException("inbound answered " + resp.statusCode() + ": " + resp.bodyAsString());
    }
    return resp.bodyAsJsonArray();
  }

  private static HttpResponse<Buffer> get(String uri) {
    return stack.get(uri);
  }

  /** Records of the test topic the group has not committed yet. */
  private static long uncommitted() {
    return stack.uncommitted().values().stream().mapToLong(Long::longValue).sum();
  }
}
