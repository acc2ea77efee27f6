package newsfeed.common.http;

import newsfeed.common.events.TimeUuids;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class FeedCursorTest {
  private static final UUID TIMEUUID = UUID.fromString("b4cc8000-a838-11ee-8080-808080808080");

  @Test
  void roundTrips() {
    String cursor = FeedCursor.encode(TIMEUUID);
    assertEquals(22, cursor.length());
    assertEquals(TIMEUUID, FeedCursor.decode(cursor));
  }

  @Test
  void rejectsAnythingThatIsNotAnEncodedTimeuuid() {
    assertThrows(IllegalArgumentException.class, () -> FeedCursor.decode("not base64!"));
    assertThrows(IllegalArgumentException.class, () -> FeedCursor.decode("AAAA"));
    assertThrows(IllegalArgumentException.class, () -> FeedCursor.decode(FeedCursor.encode(UUID.randomUUID())));
    assertThrows(IllegalArgumentException.class, () -> FeedCursor.decode(TIMEUUID.toString()));
  }

  @Test
  void timeOfTheTimeuuid() {
    assertEquals(1704067200000L, TimeUuids.unixMillis(TIMEUUID));
  }
}
