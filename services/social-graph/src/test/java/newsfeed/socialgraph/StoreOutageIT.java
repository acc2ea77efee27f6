package newsfeed.socialgraph;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import newsfeed.common.redis.RedisStore;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.TcpRelay;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static newsfeed.common.testing.Waiting.freePort;

/**
 * Store outages, with the service pointed at a closed port or at a relay the test cuts: without Redis everything
 * still works from PostgreSQL (and a write made meanwhile is not hidden by a stale cached list once Redis is
 * back); without PostgreSQL every API call is a clear 503 and the pod is not ready.
 */
class StoreOutageIT {
  private static final String CLOSED_PORT = "1";
  private static Vertx vertx;
  private static Stores stores;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    stores = new Stores(vertx);
  }

  @AfterAll
  static void stop() {
    if (stores != null) {
      stores.close();
    }
    if (vertx != null) {
      vertx.close().await();
    }
  }

  @Test
  void withRedisUnreachableEverythingIsServedFromPostgres() throws Exception {
    RunningService noRedis = RunningService.deploy(vertx, Map.of("REDIS_URL", "redis://127.0.0.1:" + CLOSED_PORT));
    try {
      long a = timed(() -> noRedis.createParticipant("no-redis a " + UUID.randomUUID()));
      long b = timed(() -> noRedis.createParticipant("no-redis b " + UUID.randomUUID()));
      assertEquals(200, timed(() -> noRedis.befriend(a, b)).statusCode());
      for (int i = 0; i < 5; i++) {
        HttpResponse<Buffer> participant = timed(() -> noRedis.get("/participant/" + a));
        assertEquals(200, participant.statusCode(), participant.bodyAsString());
        assertEquals(Set.of(b), friendIds(timed(() -> noRedis.get("/participant/" + a + "/friends"))));
        assertEquals(Set.of(a), friendIds(timed(() -> noRedis.get("/participant/" + b + "/friends"))));
      }
      // an unknown id is a 404 past a cursor too, as when its (empty) list comes from the cache
      HttpResponse<Buffer> unknown = timed(() -> noRedis.get("/participant/" + Long.MAX_VALUE + "/friends?cursor="
          + FriendsCursor.encode(b)));
      assertEquals(404, unknown.statusCode(), unknown.bodyAsString());
      assertEquals(200, timed(() -> noRedis.get("/participant/" + a + "/friends?cursor=" + FriendsCursor.encode(b)))
          .statusCode(), "an empty page past the last friend of a participant that exists");
      assertEquals(200, noRedis.get("/health/ready").statusCode(), "Redis is not needed to be ready");
      // the friendship's invalidation was the first Redis call: it failed and Redis is skipped for a while, but the
      // invalidation is retried (probing Redis) and never given up
      String deleteErrors =
          "newsfeed_cache_errors_total{cache=\"friends\",operation=\"delete\",service=\"social-graph\"}";
      assertTrue(noRedis.metric(deleteErrors) >= 1);
      Thread.sleep(2 * RedisStore.BACKOFF_MS + 200);
      assertTrue(noRedis.metric(deleteErrors) >= 2, "retried");
      assertEquals(200, timed(() -> noRedis.get("/participant/" + b)).statusCode());
      assertTrue(noRedis.metric("newsfeed_cache_requests_total{cache=\"participant\",result=\"miss\","
          + "service=\"social-graph\"}") >= 6);
      assertTrue(noRedis.metric("newsfeed_store_client_seconds_count{operation=\"delete\",outcome=\"error\","
          + "service=\"social-graph\",store=\"redis\"}") >= 2);
    } finally {
      noRedis.undeploy();
    }
  }

  @Test
  void aFriendshipMadeWhileRedisIsDownIsVisibleEverywhereOnceItIsBack() throws Exception {
    URI redis = URI.create(StackEnv.get("REDIS_URL"));
    int relayPort = freePort();
    TcpRelay relay = new TcpRelay(vertx, relayPort, redis.getHost(), redis.getPort());
    relay.start();
    RunningService viaRelay = RunningService.deploy(vertx, Map.of("REDIS_URL", "redis://127.0.0.1:" + relayPort));
    RunningService direct = RunningService.deploy(vertx);
    try {
      long a = viaRelay.createParticipant("outage a " + UUID.randomUUID());
      long b = viaRelay.createParticipant("outage b " + UUID.randomUUID());
      long c = viaRelay.createParticipant("outage c " + UUID.randomUUID());
      assertEquals(200, viaRelay.befriend(a, b).statusCode());
      assertEquals(Set.of(b), friendIds(viaRelay.get("/participant/" + a + "/friends")));
      assertTrue(stores.redisGetEventually(GraphCache.friendsKey(a)).endsWith(":" + b), "a's list is cached");

      relay.stop();
      assertEquals(200, timed(() -> viaRelay.befriend(c, a)).statusCode());
      assertEquals(Set.of(b, c), friendIds(timed(() -> viaRelay.get("/participant/" + a + "/friends"))));
      assertEquals(Set.of(a), friendIds(timed(() -> viaRelay.get("/participant/" + c + "/friends"))));
      assertEquals(200, timed(() -> viaRelay.get("/participant/" + c)).statusCode());

      relay.start();
      // the invalidation that could not reach Redis is retried: no instance serves the stale list afterwards
      long deadline = System.currentTimeMillis() + 10_000;
      while (stores.redisGet(GraphCache.friendsKey(a)) != null && System.currentTimeMillis() < deadline) {
        Thread.sleep(100);
      }
      assertEquals(null, stores.redisGet(GraphCache.friendsKey(a)), "the stale list of a was removed");
      assertEquals(Set.of(b, c), friendIds(direct.get("/participant/" + a + "/friends")));
      assertEquals(Set.of(b, c), friendIds(viaRelay.get("/participant/" + a + "/friends")));
      assertTrue(stores.redisGetEventually(GraphCache.friendsKey(a)).contains(":" + c), "refilled with the new friend");
    } finally {
      viaRelay.undeploy();
      direct.undeploy();
      relay.stop();
    }
  }

  @Test
  void withPostgresUnreachableTheApiAnswers503AndIsNotReady() throws Exception {
    RunningService noPg = RunningService.deploy(vertx, Map.of("PG_PORT", CLOSED_PORT));
    try {
      long unknown = Long.MAX_VALUE - 3;
      HttpResponse<Buffer>[] answers = new HttpResponse[] {
          timed(() -> noPg.post("/participant", new JsonObject().put("name", "never stored " + UUID.randomUUID()))),
          timed(() -> noPg.get("/participant/" + unknown)),
          timed(() -> noPg.get("/participant/" + unknown + "/friends")),
          timed(() -> noPg.befriend(unknown, unknown - 1))};
      for (HttpResponse<Buffer> resp : answers) {
        assertEquals(503, resp.statusCode(), resp.bodyAsString());
        assertEquals("application/json", resp.getHeader("Content-Type"));
        JsonObject error = resp.bodyAsJsonObject();
        assertEquals("store_unavailable", error.getString("error"));
        assertEquals(503, error.getInteger("status"));
      }
      HttpResponse<Buffer> ready = timed(() -> noPg.get("/health/ready"));
      assertEquals(503, ready.statusCode(), ready.bodyAsString());
      assertTrue(ready.bodyAsJsonObject().getJsonObject("checks").getString("postgresql").startsWith("DOWN"));
      assertEquals(200, noPg.get("/health/live").statusCode());
      assertTrue(noPg.metric("newsfeed_operation_seconds_count{entity=\"participant\",operation=\"store\","
          + "outcome=\"error\",service=\"social-graph\"}") >= 1);
      assertTrue(noPg.metric("newsfeed_store_client_seconds_count{operation=\"query\",outcome=\"error\","
          + "service=\"social-graph\",store=\"postgresql\"}") >= 1);
    } finally {
      noPg.undeploy();
    }
  }

  /** A store outage must make answers fail fast, not hang: every call here is bounded. */
  private static <T> T timed(Supplier<T> call) {
    long start = System.nanoTime();
    T result = call.get();
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(ms < 3_000, "took " + ms + " ms");
    return result;
  }

  private static Set<Long> friendIds(HttpResponse<Buffer> resp) {
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    JsonArray friends = resp.bodyAsJsonArray();
    Set<Long> ids = new HashSet<>();
    friends.forEach(o -> ids.add(SocialGraphServiceIT.idOf(((JsonObject) o).getString("to"))));
    return ids;
  }
}
