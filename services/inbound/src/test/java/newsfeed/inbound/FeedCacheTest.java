package newsfeed.inbound;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import newsfeed.common.http.FeedPage;
import newsfeed.common.redis.StampedCache;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FeedCacheTest {
  private static final UUID CURSOR = UUID.fromString("5f2b6a10-c1a4-11ef-8000-000000000001");

  @Test
  void pagesRoundTripWithAndWithoutACursor() {
    FeedPage.Body more = new FeedPage.Body("[{\"subject\":\"a|b\"}]", "AbC-_9");
    assertEquals("AbC-_9|[{\"subject\":\"a|b\"}]", FeedCache.encode(more));
    assertEquals(more, FeedCache.decode(FeedCache.encode(more)));
    FeedPage.Body last = new FeedPage.Body("[]", null);
    assertEquals("|[]", FeedCache.encode(last));
    assertEquals(last, FeedCache.decode("|[]"));
  }

  @Test
  void anUnreadableValueIsAMiss() {
    assertNull(FeedCache.decode("no bar"));
    assertNull(FeedCache.decode("cursor|{\"not\":\"an array\"}"));
    assertNull(FeedCache.decode("cursor|[truncated"));
  }

  @Test
  void onlyFirstPagesOfTheDefaultSizeAreCovered() {
    FeedCache cache = new FeedCache(new StampedCache(null, null, "inbound", FeedCache.PREFIX, Duration.ofSeconds(60),
        new SimpleMeterRegistry()));
    assertTrue(cache.covers(new FeedPage.Request(7, FeedPage.DEFAULT_LIMIT, null)));
    assertFalse(cache.covers(new FeedPage.Request(7, 10, null)), "another page size");
    assertFalse(cache.covers(new FeedPage.Request(7, FeedPage.DEFAULT_LIMIT, CURSOR)), "a later page");
    assertFalse(FeedCache.off().covers(new FeedPage.Request(7, FeedPage.DEFAULT_LIMIT, null)), "cache off");
    assertEquals("ib:v1:page:42", FeedCache.key(42));
  }

  @Test
  void theCacheOffNeverTouchesRedis() {
    FeedCache off = FeedCache.off();
    assertNull(off.get(42).result().stamp(), "a bypass: nothing to fill");
    assertFalse(off.get(42).result().hit());
    assertTrue(off.invalidate(List.of(1L, 2L)).succeeded());
  }
}
