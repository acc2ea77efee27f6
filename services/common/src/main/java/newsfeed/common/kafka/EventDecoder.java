package newsfeed.common.kafka;

import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import newsfeed.common.events.OutboundPostedEvent;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Turns a polled batch into the events the consumers of inbound and search process: each post once (the same post
 * twice in one batch, e.g. after a producer retry, is handled once). A malformed record fails the batch with a
 * {@link PermanentFailure}: the consumer then takes the batch apart and moves that record to the dead-letter topic.
 */
public final class EventDecoder {
  private EventDecoder() {
  }

  public static List<OutboundPostedEvent> decode(List<KafkaConsumerRecord<String, String>> records) {
    Map<UUID, OutboundPostedEvent> unique = new LinkedHashMap<>();
    for (KafkaConsumerRecord<String, String> r : records) {
      try {
        OutboundPostedEvent e = OutboundPostedEvent.parse(r.value());
        unique.putIfAbsent(e.eventId(), e);
      } catch (OutboundPostedEvent.MalformedEventException e) {
        throw new PermanentFailure("malformed event at " + r.topic() + "-" + r.partition() + "@" + r.offset() + ": "
            + e.getMessage(), e);
      }
    }
    return new ArrayList<>(unique.values());
  }
}
