package newsfeed.outbound;

import newsfeed.common.OutboundPostedEvent;
import newsfeed.common.TimeUuids;

import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OutboundItemTest {

  @Test
  void theApiShapeIsClassicAndOccurredIsTheTimeOfTheTimeuuid() {
    long before = System.currentTimeMillis();
    UUID occurred = Uuids.timeBased();
    JsonObject json = new OutboundItem(42, occurred, "subject", "story").toJson();
    assertEquals(Set.of("from", "occurred", "subject", "story"), json.fieldNames());
    assertEquals("/participant/42", json.getString("from"));
    long millis = Instant.parse(json.getString("occurred")).toEpochMilli();
    assertEquals(TimeUuids.unixMillis(occurred), millis);
    assertTrue(Math.abs(millis - before) < 5_000, "occurred is now: " + json);
  }

  @Test
  void theEventCarriesTheRowsTimeuuidAndTime() {
    UUID occurred = Uuids.timeBased();
    OutboundItem item = new OutboundItem(7, occurred, "s", "t");
    OutboundPostedEvent event = item.event();
    assertEquals(occurred, event.eventId());
    assertEquals(TimeUuids.unixMillis(occurred), event.postedAtMillis());
    JsonObject json = event.toJson();
    assertEquals(item.toJson().getString("occurred"), json.getString("occurred"));
    assertEquals(event, OutboundPostedEvent.parse(json.encode()), "consumers read back what outbound publishes");
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
}
