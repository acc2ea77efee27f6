package newsfeed.common.kafka;

import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import newsfeed.common.events.OutboundEvent;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a polled batch into the events the consumers of inbound and search process, in the batch's order: each
 * event once (the same event twice in one batch, e.g. after a producer retry, is handled once; a post and its
 * retraction are two events). A malformed record fails the batch with a {@link PermanentFailure}: the consumer then
 * takes the batch apart and moves that record to the dead-letter topic.
 */
public final class EventDecoder {
  private EventDecoder() {
  }

  public static List<OutboundEvent> decode(List<KafkaConsumerRecord<String, String>> records) {
    return new ArrayList<>(decodeWithRecords(records).keySet());
  }

  /** The same events, each with the first record that carried it (its headers hold the post's trace context). */
  public static Map<OutboundEvent, KafkaConsumerRecord<String, String>> decodeWithRecords(
                                                                                          List<KafkaConsumerRecord<String, String>> records) {
    Map<OutboundEvent, KafkaConsumerRecord<String, String>> unique = new LinkedHashMap<>();
    for (KafkaConsumerRecord<String, String> r : records) {
      try {
        unique.putIfAbsent(OutboundEvent.parse(r.value()), r);
      } catch (OutboundEvent.MalformedEventException e) {
        throw new PermanentFailure("malformed event at " + r.topic() + "-" + r.partition() + "@" + r.offset() + ": "
            + e.getMessage(), e);
      }
    }
    return unique;
  }
}
