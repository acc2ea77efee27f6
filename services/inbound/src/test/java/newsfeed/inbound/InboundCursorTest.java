package newsfeed.inbound;

import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class InboundCursorTest {
  private static final UUID TIMEUUID = UUID.fromString("b4cc8000-a838-11ee-8080-808080808080");

  @Test
  void roundTrips() {
    String cursor = InboundCursor.encode(TIMEUUID);
    assertEquals(22, cursor.length());
    assertEquals(TIMEUUID, InboundCursor.decode(cursor));
  }

  @Test
  void rejectsAnythingThatIsNotAnEncodedTimeuuid() {
    assertThrows(IllegalArgumentException.class, () -> InboundCursor.decode("not base64!"));
    assertThrows(IllegalArgumentException.class, () -> InboundCursor.decode("AAAA"));
    assertThrows(IllegalArgumentException.class, () -> InboundCursor.decode(InboundCursor.encode(UUID.randomUUID())));
    assertThrows(IllegalArgumentException.class, () -> InboundCursor.decode(TIMEUUID.toString()));
  }

  @Test
  void timeOfTheTimeuuid() {
    assertEquals(1704067200000L, TimeUuids.unixMillis(TIMEUUID));
  }
}
