package newsfeed.outbound;

import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.events.TimeUuids;

import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OutboundItemTest {

  @Test
  void theApiShapeIsClassicAndOccurredIsTheTimeOfTheTimeuuid() {
    long before = System.currentTimeMillis();
    UUID occurred = Uuids.timeBased();
    JsonObject json = new OutboundItem(42, occurred, null, "subject", "story").toJson();
    assertEquals(Set.of("from", "occurred", "subject", "story"), json.fieldNames());
    assertEquals("/participant/42", json.getString("from"));
    long millis = Instant.parse(json.getString("occurred")).toEpochMilli();
    assertEquals(TimeUuids.unixMillis(occurred), millis);
    assertTrue(Math.abs(millis - before) < 5_000, "occurred is now: " + json);
  }

  @Test
  void theEventCarriesTheRowsTimeuuidAndTime() {
    UUID occurred = Uuids.timeBased();
    OutboundItem item = new OutboundItem(7, occurred, null, "s", "t");
    OutboundPostedEvent event = item.event();
    assertEquals(occurred, event.eventId());
    assertEquals(TimeUuids.unixMillis(occurred), event.postedAtMillis());
    JsonObject json = event.toJson();
    assertEquals(item.toJson().getString("occurred"), json.getString("occurred"));
    assertEquals(event, OutboundPostedEvent.parse(json.encode()), "consumers read back what outbound publishes");
  }

  @Test
  void thePostersOccurredIsShownAsGivenAndTravelsWithTheEvent() {
    UUID occurred = Uuids.timeBased();
    for (String given : new String[] {"2016-05-07", "1999-01-01T00:00:00.5+02:00"}) {
      OutboundItem item = new OutboundItem(7, occurred, given, "s", "t");
      assertEquals(given, item.toJson().getString("occurred"));
      OutboundPostedEvent event = item.event();
      assertEquals(given, event.toJson().getString("occurred"));
      assertEquals(TimeUuids.unixMillis(occurred), event.postedAtMillis(), "the post time stays the server's");
      OutboundPostedEvent read = OutboundPostedEvent.parse(event.toJson().encode());
      assertEquals(event, read, "consumers read back what outbound publishes");
      assertEquals(given, read.occurredText());
    }
  }

  @Test
  void timeuuidsOfOneInstanceAreUniqueAndOrdered() {
    UUID previous = Uuids.timeBased();
    for (int i = 0; i < 10_000; i++) {
      UUID next = Uuids.timeBased();
      assertEquals(1, next.version());
      assertTrue(next.timestamp() > previous.timestamp(), "strictly increasing");
      previous = next;
    }
  }

  @Test
  void theSamePostIsPosterGivenOccurredSubjectAndStoryNotTheTimeuuid() {
    OutboundItem post = new OutboundItem(42, Uuids.timeBased(), "2016-05-07", "s", "t");
    assertTrue(post.samePostAs(new OutboundItem(42, Uuids.timeBased(), "2016-05-07", "s", "t")));
    assertFalse(post.samePostAs(new OutboundItem(43, post.occurred(), "2016-05-07", "s", "t")));
    assertFalse(post.samePostAs(new OutboundItem(42, post.occurred(), null, "s", "t")));
    assertFalse(post.samePostAs(new OutboundItem(42, post.occurred(), "2016-05-07", "s2", "t")));
    assertFalse(post.samePostAs(new OutboundItem(42, post.occurred(), "2016-05-07", "s", "t2")));
  }

  @Test
  void microsAreTheTimeuuidsTimeInCassandrasWriteTimestampUnit() {
    UUID occurred = Uuids.timeBased();
    assertEquals(TimeUuids.unixMillis(occurred), TimeUuids.unixMicros(occurred) / 1000);
  }
}
