package newsfeed.inbound;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import newsfeed.common.config.Env;
import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.http.FeedPage;
import newsfeed.common.redis.RedisConfig;
import newsfeed.common.redis.RedisStore;
import newsfeed.common.redis.StampedCache.Lookup;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.StackRedis;
import newsfeed.common.testing.TcpRelay;
import newsfeed.common.testing.TestEvents;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static newsfeed.common.testing.Waiting.freePort;

/**
 * The write-through feed cache on the stack's real Redis: a fanned-out post lands in every cached first page at
 * its place in the feed, so that the page Redis then serves is exactly the page Cassandra's rows would render; a
 * retracted post drops the page instead; and a reader's fill from before a write is never served after it.
 */
class FeedCacheIT {
  private static final long POSTER = 7;
  private static Vertx vertx;
  private static Redis redis;
  private static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();
  private static FeedCache cache;
  private static Context loop;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    redis = StackRedis.client(vertx);
    RedisStore store = new RedisStore(redis, new SimpleMeterRegistry(), 2_000);
    // the service's keys: the friends are random ids no other test uses
    cache = FeedCache.create(vertx, store, Duration.ofSeconds(60), 32, REGISTRY);
    loop = vertx.getOrCreateContext();
  }

  // fan-out drives the cache's limiter from its event loop: the calls that pass through it run on one here too
  private static <T> Future<T> onLoop(Supplier<Future<T>> call) {
    return Future.<Future<T>>future(p -> loop.runOnContext(v -> p.complete(call.get()))).compose(f -> f);
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
  }

  @Test
  void aPostGoesIntoACachedPageAtItsPlaceAsCassandraWouldRenderIt() {
    long friend = friend();
    List<InboundItem> feed = new ArrayList<>(List.of(row(friend, 300), row(friend, 200), row(friend, 100)));
    fill(friend, feed);

    // newest, between two rows, the same instant as a row (Cassandra's order), oldest of a page that is the whole feed
    List<OutboundPostedEvent> posts = new ArrayList<>();
    for (long at : new long[] {400, 250, 200, 50}) {
      OutboundPostedEvent post = post(at);
      posts.add(post);
      onLoop(() -> cache.insert(List.of(friend), post)).await();
      feed.add(row(friend, post));
      assertCached(friend, feed);
    }
    onLoop(() -> cache.insert(List.of(friend), posts.get(1))).await();
    assertCached(friend, feed);   // the same post again (a redelivery): once
  }

  @Test
  void aFullPagePushesItsOldestRowOffAndAPostOlderThanThePageLeavesItAlone() {
    long friend = friend();
    List<InboundItem> feed = new ArrayList<>(LongStream.rangeClosed(1, FeedPage.DEFAULT_LIMIT)
        .mapToObj(i -> row(friend, 100 * i)).toList());
    fill(friend, feed);
    assertNull(page(friend).value().nextCursor(), "the whole feed: no cursor");

    OutboundPostedEvent newest = post(100 * FeedPage.DEFAULT_LIMIT + 1);
    onLoop(() -> cache.insert(List.of(friend), newest)).await();
    feed.add(row(friend, newest));
    FeedPage.Body full = assertCached(friend, feed);
    assertNotNull(full.nextCursor(), "a 21st row now follows the page");

    OutboundPostedEvent old = post(150);   // belongs to the second page
    onLoop(() -> cache.insert(List.of(friend), old)).await();
    feed.add(row(friend, old));
    assertCached(friend, feed);
  }

  @Test
  void aLargeFanOutDropsEveryPageOfItsFriends() {
    List<Long> friends = LongStream.range(0, FeedCache.DROP_SLICE + 2).mapToObj(i -> friend()).toList();
    for (long friend : List.of(friends.get(0), friends.get(FeedCache.DROP_SLICE + 1))) {   // first and last slice
      fill(friend, List.of(row(friend, 300)));
    }
    onLoop(() -> cache.drop(friends)).await();
    for (long friend : List.of(friends.get(0), friends.get(FeedCache.DROP_SLICE + 1))) {
      Lookup<FeedPage.Body> dropped = page(friend);
      assertFalse(dropped.hit(), "the page of " + friend + " is dropped: Cassandra answers");
      assertNotNull(dropped.stamp(), "and its next reader fills it again");
    }
    assertTrue(FeedCache.writesThrough(FeedCache.WRITE_THROUGH_MAX_FRIENDS));
    assertFalse(FeedCache.writesThrough(FeedCache.WRITE_THROUGH_MAX_FRIENDS + 1));
  }

  @Test
  void aDropAnsweredLateWaitsOutRedisBackOffAndSendsAgainInsteadOfLeavingThePagesPending() throws Exception {
    withRedisBehindARelay((relay, late, errors) -> {
      List<Long> friends = LongStream.range(0, 3L * FeedCache.DROP_SLICE + 1).mapToObj(i -> friend()).toList();
      List<Long> filled = List.of(friends.get(0), friends.get(friends.size() - 1));
      filled.forEach(friend -> fill(friend, List.of(row(friend, 300))));
      // Redis does the work but its answers come after REDIS_TIMEOUT_MS: the first round trips time out
      relay.holdAnswers();
      vertx.setTimer(600, t -> relay.releaseAnswers());
      onLoop(() -> late.drop(friends)).await(30, TimeUnit.SECONDS);
      assertTrue(errors.get() >= 1, "a round trip timed out");
      assertEquals(0, late.pendingInvalidations(), "sent again once the back-off was over");
      filled.forEach(friend -> assertFalse(page(friend).hit(), "the page of " + friend + " is dropped"));
    });
  }

  @Test
  void aDropDuringAnOutageGivesUpAfterAWhileAndLeavesThePagesPending() throws Exception {
    withRedisBehindARelay((relay, late, errors) -> {
      List<Long> friends = LongStream.range(0, FeedCache.DROP_SLICE + 1).mapToObj(i -> friend()).toList();
      relay.stop();
      long started = System.nanoTime();
      onLoop(() -> late.drop(friends)).await(30, TimeUnit.SECONDS);
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertEquals(friends.size(), late.pendingInvalidations(), "every page waits for the background retries");
      assertTrue(tookMs >= FeedCache.DROP_WAIT_MS, "kept sending again for a while: " + tookMs);
      assertTrue(tookMs < FeedCache.DROP_WAIT_MS + 3 * RedisStore.BACKOFF_MS, "then gave up: " + tookMs);
    });
  }

  private interface RelayedCacheTest {
    void run(TcpRelay relay, FeedCache cache, Supplier<Double> deleteErrors) throws Exception;
  }

  // the service's cache on the stack's Redis through a relay the test controls, with the service's default timeout
  private static void withRedisBehindARelay(RelayedCacheTest test) throws Exception {
    URI at = URI.create(StackEnv.get("REDIS_URL"));
    TcpRelay relay = new TcpRelay(vertx, freePort(), at.getHost(), at.getPort());
    relay.start();
    Redis client = Redis.createClient(vertx, RedisConfig.fromEnv(new Env(Map.of(
        "REDIS_URL", "redis://127.0.0.1:" + relay.port()))).options());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    FeedCache cache = FeedCache.create(vertx, new RedisStore(client, registry, 250), Duration.ofSeconds(60), 32,
        registry);
    try {
      test.run(relay, cache, () -> registry.find("newsfeed.cache.errors").tag("operation", "delete").counters()
          .stream().mapToDouble(c -> c.count()).sum());
    } finally {
      cache.close();
      client.close();
      relay.stop();
    }
  }

  @Test
  void aRetractedPostIsNeverMergedBack() {
    long friend = friend();
    fill(friend, List.of(row(friend, 300)));
    OutboundPostedEvent retracted = post(400);
    cache.retracted(retracted.eventId()).await();
    onLoop(() -> cache.insert(List.of(friend), retracted)).await();
    assertFalse(page(friend).hit(), "the page is dropped: Cassandra answers");
  }

  @Test
  void aFillReadBeforeAWriteNeverLandsAfterItAndEveryFriendOfAPostIsRestamped() {
    long cached = friend();
    long reading = friend();
    fill(cached, List.of(row(cached, 100)));
    Lookup<FeedPage.Body> miss = page(reading);
    assertFalse(miss.hit());
    OutboundPostedEvent post = post(500);
    onLoop(() -> cache.insert(List.of(cached, reading), post)).await();
    // the reader of `reading` read Cassandra before the post's row: its fill must not land
    cache.put(reading, miss.stamp(), List.of(row(reading, 100)), FeedPage.DEFAULT_LIMIT).await();
    assertFalse(page(reading).hit(), "a fill stamped before the write is never served");
    assertCached(cached, List.of(row(cached, 100), row(cached, post)));
    // and a fill with the current stamp lands
    Lookup<FeedPage.Body> again = page(reading);
    cache.put(reading, again.stamp(), List.of(row(reading, post)), FeedPage.DEFAULT_LIMIT).await();
    assertTrue(page(reading).hit());
  }

  @Test
  void postsFannedOutAtOnceToTheSameFriendsAllLandWithoutRunningAgain() {
    List<Long> friends = LongStream.range(0, 5).map(i -> friend()).boxed().toList();
    Map<Long, List<InboundItem>> feeds = new HashMap<>();
    for (long friend : friends) {
      feeds.put(friend, new ArrayList<>(List.of(row(friend, 100))));
      fill(friend, feeds.get(friend));
    }
    double conflicts = updates("conflict");
    double applied = updates("applied");
    List<Future<Void>> inserts = new ArrayList<>();
    for (long at = 200; at < 1_200; at += 100) {
      OutboundPostedEvent post = post(at);
      friends.forEach(friend -> feeds.get(friend).add(row(friend, post)));
      // all in flight together, as fan-out sends a batch's posts
      inserts.add(onLoop(() -> cache.insert(friends, post)));
    }
    Future.all(inserts).await();
    friends.forEach(friend -> assertCached(friend, feeds.get(friend)));
    assertEquals(conflicts, updates("conflict"), "no transaction ran again");
    assertEquals(applied + inserts.size(), updates("applied"));
  }

  @Test
  void aPostToAFeedThatIsNotCachedWritesNoRowToRedisAndTheNextFillIsCurrent() {
    long friend = friend();
    long cached = friend();
    fill(cached, List.of(row(cached, 100)));
    assertFalse(page(friend).hit(), "a miss: the reader put a generation in place");
    OutboundPostedEvent post = post(700);
    onLoop(() -> cache.insert(List.of(friend, cached), post)).await();
    assertEquals(0L, redis.send(Request.cmd(Command.EXISTS).arg(FeedCache.key(friend)).arg(
        FeedCache.generationKey(friend))).await().toLong(),
        "no page, no row, no generation: nothing of the post is kept for a feed that is not cached");
    assertFalse(page(friend).hit());
    assertCached(cached, List.of(row(cached, 100), row(cached, post)));
    fill(friend, List.of(row(friend, 100), row(friend, post)));
    OutboundPostedEvent next = post(800);
    onLoop(() -> cache.insert(List.of(friend), next)).await();
    assertCached(friend, List.of(row(friend, 100), row(friend, post), row(friend, next)));
  }

  @Test
  void anInvalidatedPageIsNeverServedNorAFillReadBeforeTheInvalidation() {
    long friend = friend();
    fill(friend, List.of(row(friend, 100)));
    Lookup<FeedPage.Body> hit = page(friend);
    assertTrue(hit.hit());
    long other = friend();
    Lookup<FeedPage.Body> miss = page(other);
    cache.invalidate(List.of(friend, other)).await();
    assertFalse(page(friend).hit(), "dropped");
    cache.put(other, miss.stamp(), List.of(row(other, 100)), FeedPage.DEFAULT_LIMIT).await();
    assertFalse(page(other).hit(), "a fill read before the invalidation is never served");
  }

  @Test
  void aGenerationEvictedAfterASlowFillNeverMakesTheFillCurrent() {
    long friend = friend();
    Lookup<FeedPage.Body> slow = page(friend);
    assertFalse(slow.hit());
    onLoop(() -> cache.insert(List.of(friend), post(900))).await();
    // a reader after the post puts a fresh generation in place; the one that read Cassandra before it lands last
    assertFalse(page(friend).hit());
    cache.put(friend, slow.stamp(), List.of(row(friend, 100)), FeedPage.DEFAULT_LIMIT).await();
    assertFalse(page(friend).hit(), "stamped with the generation the post deleted");
    StackRedis.evict(redis, FeedCache.generationKey(friend));
    assertFalse(page(friend).hit(), "an evicted generation is replaced by a fresh one, which no page carries");
  }

  @Test
  void aWriteCountedOnAnEvictedGenerationStillLeavesAnOlderFillStale() {
    long friend = friend();
    fill(friend, List.of(row(friend, 100)));
    StackRedis.evict(redis, FeedCache.generationKey(friend));
    OutboundPostedEvent first = post(200);
    onLoop(() -> cache.insert(List.of(friend), first)).await();
    Lookup<FeedPage.Body> miss = page(friend);
    assertFalse(miss.hit(), "the page's stamp is not the generation that replaced the evicted one");
    StackRedis.evict(redis, FeedCache.generationKey(friend));
    onLoop(() -> cache.insert(List.of(friend), post(300))).await();
    // a fill read before the second post, stamped with the generation counted on top of the first eviction
    cache.put(friend, miss.stamp(), List.of(row(friend, 100), row(friend, first)), FeedPage.DEFAULT_LIMIT).await();
    assertFalse(page(friend).hit(), "a write on an evicted generation counts on a fresh one");
  }

  private static double updates(String result) {
    return REGISTRY.counter("newsfeed.cache.updates", "cache", "inbound", "result", result).count();
  }

  private static long friend() {
    return ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
  }

  // a post of its own (the retraction markers outlive a test): the same instant, another node each time
  private static OutboundPostedEvent post(long at) {
    return new OutboundPostedEvent(TestEvents.timeUuidAt(at, ThreadLocalRandom.current().nextLong()), POSTER,
        "post at " + at,
        "a story with \"quotes\", a | bar\nand a newline", System.currentTimeMillis());
  }

  private static InboundItem row(long friend, long at) {
    return new InboundItem(friend, TestEvents.timeUuidAt(at, at), POSTER, "2026-11-28T12:00:00Z", "row " + at, "s");
  }

  private static InboundItem row(long friend, OutboundPostedEvent post) {
    return new InboundItem(friend, post.eventId(), post.participantId(), post.givenOccurred(), post.subject(),
        post.story());
  }

  // what a reader does on a miss: the rows Cassandra would give (limit + 1 at most), stamped with the miss
  private static void fill(long friend, List<InboundItem> rows) {
    Lookup<FeedPage.Body> miss = page(friend);
    assertFalse(miss.hit());
    cache.put(friend, miss.stamp(), newestFirst(rows), FeedPage.DEFAULT_LIMIT).await();
    assertCached(friend, rows);
  }

  private static Lookup<FeedPage.Body> page(long friend) {
    return cache.get(friend).await();
  }

  // the cached page must be what InboundHandler sends for these rows read from Cassandra
  private static FeedPage.Body assertCached(long friend, List<InboundItem> rows) {
    Lookup<FeedPage.Body> lookup = page(friend);
    assertTrue(lookup.hit(), "cached");
    assertEquals(FeedPage.render(newestFirst(rows), FeedPage.DEFAULT_LIMIT), lookup.value());
    return lookup.value();
  }

  private static List<InboundItem> newestFirst(List<InboundItem> rows) {
    return rows.stream().sorted(Comparator.comparing((InboundItem r) -> FeedCache.orderKey(r.occurred())).reversed())
        .limit(FeedPage.DEFAULT_LIMIT + 1).toList();
  }
}
