package newsfeed.inbound;

import newsfeed.common.events.OutboundPostedEvent;

import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How many friends one fan-out write carries: the configured rows, fewer for long posts, never zero. */
class FanoutBatchSizeTest {

  private static int rows(int batchRows, String subject, String story) {
    FanoutProcessor fanout =
        new FanoutProcessor(null, null, FeedCache.off(), new SimpleMeterRegistry(), 1, 1, batchRows);
    return fanout.rowsPerRequest(new OutboundPostedEvent(Uuids.timeBased(), 1, subject, story, 0));
  }

  @Test
  void anOrdinaryPostGoesTenFriendsAtATime() {
    assertEquals(10, rows(10, "five words of a subject", "forty words ".repeat(25)));   // ~300 bytes a row
  }

  @Test
  void longPostsGoInSmallerBatchesUnderTheByteBudget() {
    String story = "x".repeat(1_000);                   // ~1.1 KB a row: 3 rows fit in 4 KiB
    assertEquals(3, rows(10, "s", story));
    assertEquals(1, rows(10, "s", "x".repeat(10_000)));  // the longest story: a row per request
  }

  @Test
  void multiByteTextCountsItsUtf8Bytes() {
    assertEquals(3, rows(10, "s", "é".repeat(500)));     // 1,000 bytes, not 500
    assertEquals(1, rows(10, "s", "😀".repeat(1_000)));  // 4 bytes each
  }

  @Test
  void batchRowsOfOneTurnsBatchingOff() {
    assertEquals(1, rows(1, "s", "short"));
  }
}
