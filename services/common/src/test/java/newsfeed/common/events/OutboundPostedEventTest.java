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
    assertEquals(TimeUuids.unixMicros(UUID.fromString(TIMEUUID)), e.writtenMicros(),
        "an event without writtenMicros was written at the post's own time");
  }

  @Test
  void readsBackWhatIsPublished() {
    OutboundPostedEvent posted = new OutboundPostedEvent(UUID.fromString(TIMEUUID), 42, "s", "t", 1704067200000L,
        "2023-12-31").writtenAt(1704067200000123L);
    assertEquals(posted, OutboundEvent.parse(posted.toJson().encode()));
    assertEquals("posted", posted.toJson().getString("type"));
    OutboundRetractedEvent retracted = new OutboundRetractedEvent(UUID.fromString(TIMEUUID), 42, 1704067200000001L);
    assertEquals(retracted, OutboundEvent.parse(retracted.toJson().encode()));
    assertThrows(OutboundEvent.MalformedEventException.class,
        () -> OutboundPostedEvent.parse(retracted.toJson().encode()), "a retraction is not a post");
  }

  @Test
  void rejectsUnusableRetractionsAndTypes() {
    assertThrows(OutboundEvent.MalformedEventException.class, () -> OutboundEvent.parse(
        "{\"type\":\"retracted\",\"eventId\":\"" + TIMEUUID + "\",\"participantId\":42}"));
    assertThrows(OutboundEvent.MalformedEventException.class, () -> OutboundEvent.parse(
        "{\"type\":\"retracted\",\"eventId\":\"" + TIMEUUID + "\",\"participantId\":42,\"writtenMicros\":\"1\"}"));
    assertThrows(OutboundEvent.MalformedEventException.class, () -> OutboundEvent.parse(
        "{\"type\":\"edited\",\"eventId\":\"" + TIMEUUID + "\",\"participantId\":42,\"postedAtMillis\":1}"));
    assertThrows(OutboundEvent.MalformedEventException.class, () -> OutboundEvent.parse(
        "{\"type\":7,\"eventId\":\"" + TIMEUUID + "\",\"participantId\":42,\"postedAtMillis\":1}"));
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
