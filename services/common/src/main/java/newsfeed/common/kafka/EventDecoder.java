package newsfeed.common.kafka;

import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import newsfeed.common.events.OutboundEvent;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

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
    Set<OutboundEvent> unique = new LinkedHashSet<>();
    for (KafkaConsumerRecord<String, String> r : records) {
      try {
        unique.add(OutboundEvent.parse(r.value()));
      } catch (OutboundEvent.MalformedEventException e) {
        throw new PermanentFailure("malformed event at " + r.topic() + "-" + r.partition() + "@" + r.offset() + ": "
            + e.getMessage(), e);
      }
    }
    return new ArrayList<>(unique);
  }
}
