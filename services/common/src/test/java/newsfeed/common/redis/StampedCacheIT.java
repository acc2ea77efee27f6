package newsfeed.common.redis;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import newsfeed.common.redis.StampedCache.Lookup;
import newsfeed.common.testing.StackRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stamped cache on the stack's real Redis, where generations may expire or be evicted at Redis' memory limit:
 * a value filled from before a write is never served after it, whichever of the keys Redis drops.
 */
class StampedCacheIT {
  private static final String PREFIX = "it:stamped";
  private static Vertx vertx;
  private static Redis redis;
  private static StampedCache cache;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    redis = StackRedis.client(vertx);
    cache = new StampedCache(vertx, new RedisStore(redis, new SimpleMeterRegistry(), 2_000), "it", PREFIX,
        Duration.ofSeconds(60), new SimpleMeterRegistry());
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
  }

  @Test
  void aFillStampedBeforeAWriteStaysAMissAlsoWhenTheGenerationIsEvictedLater() {
    long id = id();
    Lookup<String> slow = cache.get(id, Function.identity()).await();
    assertFalse(slow.hit());
    assertNotNull(slow.stamp(), "no generation yet: the reader put a fresh one in place and stamps with it");
    cache.invalidate(List.of(id)).await();
    assertEquals(0L, redis.send(Request.cmd(Command.EXISTS).arg(StampedCache.valueKey(PREFIX, id))
        .arg(StampedCache.generationKey(PREFIX, id))).await().toLong(), "a write leaves no key of the id");
    Lookup<String> next = cache.get(id, Function.identity()).await();
    cache.put(id, next.stamp(), "current").await();
    // the slow reader read the store before the write, and its fill lands last
    cache.put(id, slow.stamp(), "from before the write").await();
    assertFalse(cache.get(id, Function.identity()).await().hit(), "stamped with the generation the write deleted");
    StackRedis.evict(redis, StampedCache.generationKey(PREFIX, id));
    Lookup<String> after = cache.get(id, Function.identity()).await();
    assertFalse(after.hit(), "an evicted generation is replaced by a fresh one, which no value carries");
    cache.put(id, after.stamp(), "current").await();
    assertEquals("current", cache.get(id, Function.identity()).await().value(), "and a current fill is served");
  }

  @Test
  void readersThatFindNoGenerationAgreeOnTheOneTheFirstPutInPlace() {
    long id = id();
    List<Lookup<String>> misses = List.of(cache.get(id, Function.identity()).await(),
        cache.get(id, Function.identity()).await());
    assertEquals(misses.get(0).stamp(), misses.get(1).stamp());
    cache.put(id, misses.get(1).stamp(), "filled").await();
    assertTrue(cache.get(id, Function.identity()).await().hit());
  }

  private static long id() {
    return ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
  }
}
