package newsfeed.common.events;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class OutboundPostedEventTest {
  // a version-1 UUID made by Cassandra's now() at 2024-01-01T00:00:00.000Z
  private static final String TIMEUUID = "b4cc8000-a838-11ee-8080-808080808080";

  @Test
  void parsesTheContractShape() {
    OutboundPostedEvent e = OutboundPostedEvent.parse("{\"eventId\":\"" + TIMEUUID + "\",\"participantId\":42,"
        + "\"from\":\"/participant/42\",\"occurred\":\"2024-01-01T00:00:00.000Z\",\"subject\":\"s\",\"story\":\"t\","
        + "\"postedAtMillis\":1704067200000}");
    assertEquals(UUID.fromString(TIMEUUID), e.eventId());
    assertEquals(42, e.participantId());
    assertEquals("s", e.subject());
    assertEquals("t", e.story());
    assertEquals(1704067200000L, e.postedAtMillis());
    assertEquals(Instant.parse("2024-01-01T00:00:00Z"), e.occurred());
  }

  @Test
  void rejectsWhatCanNeverBeProcessed() {
    assertThrows(OutboundPostedEvent.MalformedEventException.class, () -> OutboundPostedEvent.parse(null));
    assertThrows(OutboundPostedEvent.MalformedEventException.class, () -> OutboundPostedEvent.parse("not json"));
    assertThrows(OutboundPostedEvent.MalformedEventException.class, () -> OutboundPostedEvent.parse("[1]"));
    assertThrows(OutboundPostedEvent.MalformedEventException.class,
        () -> OutboundPostedEvent.parse("{\"participantId\":1,\"postedAtMillis\":1}"));
    assertThrows(OutboundPostedEvent.MalformedEventException.class, () -> OutboundPostedEvent.parse(
        "{\"eventId\":\"" + UUID.randomUUID() + "\",\"participantId\":1,\"postedAtMillis\":1}"));
    assertThrows(OutboundPostedEvent.MalformedEventException.class, () -> OutboundPostedEvent.parse(
        "{\"eventId\":\"" + TIMEUUID + "\",\"participantId\":0,\"postedAtMillis\":1}"));
    assertThrows(OutboundPostedEvent.MalformedEventException.class, () -> OutboundPostedEvent.parse(
        "{\"eventId\":\"" + TIMEUUID + "\",\"participantId\":\"7\",\"postedAtMillis\":1}"));
    assertThrows(OutboundPostedEvent.MalformedEventException.class, () -> OutboundPostedEvent.parse(
        "{\"eventId\":\"" + TIMEUUID + "\",\"participantId\":7,\"postedAtMillis\":1,\"story\":3}"));
  }
}
