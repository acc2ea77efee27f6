package newsfeed.inbound;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.buffer.Buffer;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.impl.types.BulkType;
import io.vertx.redis.client.impl.types.MultiType;
import newsfeed.common.http.FeedPage;
import newsfeed.common.testing.TestEvents;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FeedCacheTest {
  private static final UUID CURSOR = UUID.fromString("5f2b6a10-c1a4-11ef-8000-000000000001");

  @Test
  void aCachedPageIsSentExactlyAsARenderedOneWithAndWithoutACursor() {
    List<InboundItem> rows = List.of(row(300, "new|est", "a \"quoted\"\nline ~"), row(200, "middle", null),
        row(100, "oldest", "x"));
    List<String> members = rows.stream().map(FeedCache::member).toList();
    for (int limit : new int[] {1, 2, 3, 5}) {
      List<String> cached = members.subList(0, Math.min(limit + 1, members.size()));
      assertEquals(FeedPage.render(rows, limit), FeedCache.decode(cached, limit), "limit " + limit);
    }
    assertTrue(members.stream().noneMatch(m -> m.contains("\n")), "no raw newline from the JSON");
  }

  @Test
  void aPageIsAHitOnlyWhenItsStampEqualsTheGeneration() {
    List<String> page = List.of(FeedCache.STAMP, FeedCache.member(row(300, "a", "s")));
    assertTrue(FeedCache.lookup("7", "7", page, 20).hit());
    assertTrue(FeedCache.lookup("7", "7.0", page, 20).hit(), "a score as RESP3 gives it");
    assertTrue(FeedCache.lookup("4503599627370495", "4.503599627370495E15", page, 20).hit(),
        "the largest fresh generation plus writes, as RESP3 prints a large score");
    assertEquals("8", FeedCache.lookup("8", "7", page, 20).stamp(), "a write the page missed: a miss stamped 8");
    List<String> unstamped = List.of(page.get(1), FeedCache.member(row(200, "b", "s")));
    assertFalse(FeedCache.lookup("7", "7", unstamped, 20).hit(), "rows without a stamp (a post to no page)");
    assertNull(FeedCache.lookup(null, "7", page, 20).stamp(), "no generation known: no fill");
    assertFalse(FeedCache.lookup(null, "7", page, 20).hit());
    assertFalse(FeedCache.lookup("7", "7", page.subList(0, 1), 20).hit(), "no rows");
    assertFalse(FeedCache.lookup("7", null, List.of(), 20).hit(), "nothing cached");
    assertFalse(FeedCache.lookup("7", "7", List.of(FeedCache.STAMP, "0 x {}"), 20).hit(), "unreadable");
    assertNull(FeedCache.lookup("g1", "7", page, 20).stamp(), "an unreadable count: no fill");
  }

  @Test
  void membersAndTheTopScoreAreReadFromRESP2AndRESP3Replies() {
    MultiType resp2 = MultiType.create(4, false);
    List.of("~", "3", "row", "0").forEach(v -> resp2.add(bulk(v)));
    MultiType resp3 = MultiType.create(2, false);
    for (String[] pair : new String[][] {{"~", "3.0"}, {"row", "0.0"}}) {
      MultiType p = MultiType.create(2, false);
      p.add(bulk(pair[0]));
      p.add(bulk(pair[1]));
      resp3.add(p);
    }
    assertEquals(new FeedCache.Scored("3", List.of("~", "row")), FeedCache.scored(resp2));
    assertEquals(new FeedCache.Scored("3.0", List.of("~", "row")), FeedCache.scored(resp3));
    assertEquals(new FeedCache.Scored(null, List.of()), FeedCache.scored(MultiType.EMPTY_MULTI));
    assertEquals(new FeedCache.Scored(null, List.of()), FeedCache.scored(null));
  }

  private static Response bulk(String value) {
    return BulkType.create(Buffer.buffer(value), false);
  }

  @Test
  void theOrderKeySortsByTimestampThenByTheOtherBytesAsSignedBytes() {
    UUID early = TestEvents.timeUuidAt(99_999, 0x3FFF_FFFF_FFFF_FFFFL);
    UUID late = TestEvents.timeUuidAt(100_000, 1);
    assertEquals(FeedCache.ORDER_KEY_LENGTH, FeedCache.orderKey(early).length());
    assertTrue(FeedCache.orderKey(early).compareTo(FeedCache.orderKey(late)) < 0);
    // the same instant: a byte 0x80 and up is negative, so it sorts before 0x00..0x7f
    UUID high = new UUID(late.getMostSignificantBits(), 0x80_00_00_00_00_00_00_FFL);
    UUID low = new UUID(late.getMostSignificantBits(), 0x80_00_00_00_00_00_00_01L);
    UUID negative = new UUID(late.getMostSignificantBits(), 0x80_00_00_00_00_00_00_80L);
    assertTrue(FeedCache.orderKey(negative).compareTo(FeedCache.orderKey(low)) < 0);
    assertTrue(FeedCache.orderKey(high).compareTo(FeedCache.orderKey(low)) < 0, "0xFF is -1");
  }

  @Test
  void anUnreadableRowIsAMiss() {
    String key = "0".repeat(FeedCache.ORDER_KEY_LENGTH);
    assertNull(FeedCache.decode(List.of(key + " AbC {\"truncated\""), 20));
    assertNull(FeedCache.decode(List.of(key + " AbC"), 20));
    assertNull(FeedCache.decode(List.of("1 AbC {}"), 20));
  }

  static InboundItem row(long timestamp, String subject, String story) {
    return new InboundItem(42, TestEvents.timeUuidAt(timestamp, timestamp), 7, null, subject, story);
  }

  @Test
  void onlyFirstPagesOfTheDefaultSizeAreCovered() {
    FeedCache cache = FeedCache.create(null, null, Duration.ofSeconds(60), 32, new SimpleMeterRegistry());
    assertTrue(cache.covers(new FeedPage.Request(7, FeedPage.DEFAULT_LIMIT, null)));
    assertFalse(cache.covers(new FeedPage.Request(7, 10, null)), "another page size");
    assertFalse(cache.covers(new FeedPage.Request(7, FeedPage.DEFAULT_LIMIT, CURSOR)), "a later page");
    assertFalse(FeedCache.off().covers(new FeedPage.Request(7, FeedPage.DEFAULT_LIMIT, null)), "cache off");
    assertEquals("ib:v3:page:42", FeedCache.key(42));
    assertEquals("ib:v3:page-gen:42", FeedCache.generationKey(42));
  }

  @Test
  void theCacheOffNeverTouchesRedis() {
    FeedCache off = FeedCache.off();
    assertNull(off.get(42).result().stamp(), "a bypass: nothing to fill");
    assertFalse(off.get(42).result().hit());
    assertTrue(off.invalidate(List.of(1L, 2L)).succeeded());
  }
}
