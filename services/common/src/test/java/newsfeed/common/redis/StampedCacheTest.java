package newsfeed.common.redis;

import newsfeed.common.redis.StampedCache.Lookup;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.redis.client.Request;
import io.vertx.core.buffer.Buffer;
import io.vertx.redis.client.impl.types.BulkType;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.function.Function;

import newsfeed.common.config.Env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StampedCacheTest {
  // a value is readable when it is a number
  private static final Function<String, Integer> NUMBER = v -> v.matches("-?\\d+") ? Integer.valueOf(v) : null;

  @Test
  void keysCarryThePrefixAndTheId() {
    assertEquals("x:v1:thing:42", StampedCache.valueKey("x:v1:thing", 42));
    assertEquals("x:v1:thing-gen:42", StampedCache.generationKey("x:v1:thing", 42));
  }

  @Test
  void aWriteDeletesValuesAndGenerationsAndACountedCacheCanCountAWriteOnAFreshBase() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    StampedCache plain = new StampedCache(null, null, "p", "x:p", Duration.ofSeconds(60), registry);
    assertEquals(List.of("del x:p:42 x:p-gen:42 x:p:7 x:p-gen:7"), text(List.of(plain.invalidation(List.of(42L, 7L)))));
    StampedCache counted = StampedCache.counted(null, null, "c", "x:c", Duration.ofSeconds(60), registry);
    List<String> counting = text(counted.countedWrite(42));
    assertEquals(3, counting.size());
    assertTrue(counting.get(0).matches("set x:c-gen:42 \\d+ NX EX 420"), "a fresh base only where none is");
    long base = Long.parseLong(counting.get(0).split(" ")[2]);
    assertTrue(base >= 1L << 32 && base < 1L << 52, "exact as a score, far from small counts: " + base);
    assertEquals(List.of("incr x:c-gen:42", "expire x:c-gen:42 420"), counting.subList(1, 3));
    assertThrows(IllegalStateException.class, () -> plain.countedWrite(42));
    assertTrue(plain.freshGeneration().matches("[0-9a-z]+"));
    assertNotEquals(plain.freshGeneration(), plain.freshGeneration(), "random");
  }

  @Test
  void aReaderPutsAFreshGenerationInPlaceOfAMissingOne() {
    StampedCache plain = new StampedCache(null, null, "p", "x:p", Duration.ofSeconds(60), new SimpleMeterRegistry());
    StampedCache.GenerationRead read = plain.readGeneration(42);
    assertTrue(read.fresh().matches("[0-9a-z]+"), read.fresh());
    assertEquals(List.of("set x:p-gen:42 " + read.fresh() + " NX GET EX 420"), text(List.of(read.request())));
    assertEquals("g1", read.current(BulkType.create(Buffer.buffer("g1"), false)), "the one there was");
    assertEquals(read.fresh(), read.current(null), "none: the fresh one, now in place");
  }

  // a request as it goes on the wire (RESP) without the lengths: "incr key"
  private static List<String> text(List<Request> requests) {
    return requests.stream().map(r -> Arrays.stream(r.toString().split("\r\n"))
        .filter(line -> !line.startsWith("*") && !line.startsWith("$")).collect(Collectors.joining(" "))).toList();
  }

  @Test
  void aValueStampedWithTheCurrentGenerationIsAHit() {
    Lookup<Integer> hit = StampedCache.lookup("g1|17", "g1", NUMBER);
    assertTrue(hit.hit());
    assertEquals(17, hit.value());
    assertNull(hit.stamp(), "a hit is never re-filled");
    // the value may itself contain bars: only the first one ends the stamp
    assertEquals("a|b", StampedCache.lookup("g1|a|b", "g1", Function.identity()).value());
  }

  @Test
  void aValueFromBeforeTheLastWriteIsAMissStampedWithTheCurrentGeneration() {
    Lookup<Integer> stale = StampedCache.lookup("g1|17", "g2", NUMBER);
    assertFalse(stale.hit());
    assertEquals("g2", stale.stamp());
    Lookup<Integer> unknown = StampedCache.lookup("g1|17", null, NUMBER);
    assertFalse(unknown.hit(), "no generation known: neither a hit");
    assertNull(unknown.stamp(), "nor a fill");
    assertEquals("g3", StampedCache.lookup(null, "g3", NUMBER).stamp());
    assertEquals("g1", StampedCache.lookup("g1|seventeen", "g1", NUMBER).stamp(), "an unreadable value is a miss");
    assertEquals("g1", StampedCache.lookup("no-bar", "g1", NUMBER).stamp());
    assertEquals("g1", StampedCache.lookup("|17", "g1", NUMBER).stamp(), "an empty stamp is no stamp");
  }

  @Test
  void theRedisSettingsAreValidatedAndNeverPrintAPassword() {
    RedisConfig c = RedisConfig.fromEnv(new Env(Map.of("REDIS_URL", "redis://:url-secret@cache:6379/2",
        "REDIS_PASSWORD", "redis-secret", "REDIS_TIMEOUT_MS", "120")));
    assertEquals(Duration.ofMillis(120), c.timeout());
    assertEquals("redis-secret", c.options().getPassword());
    assertFalse(c.toString().contains("secret"), c.toString());
    assertTrue(c.toString().contains("cache:6379/2"), c.toString());
    assertEquals(64, c.options().getMaxPoolSize(), "the default pool");
    assertEquals(8, RedisConfig.fromEnv(new Env(Map.of("REDIS_POOL_SIZE", "8"))).options().getMaxPoolSize());
    assertThrows(IllegalArgumentException.class, () -> RedisConfig.fromEnv(new Env(Map.of("REDIS_POOL_SIZE", "0"))));
    for (String bad : new String[] {"http://cache:6379", "cache:6379", "redis://"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> RedisConfig.fromEnv(new Env(Map.of("REDIS_URL", bad))), bad);
      assertTrue(e.getMessage().contains("REDIS_URL"), e.getMessage());
    }
  }
}
