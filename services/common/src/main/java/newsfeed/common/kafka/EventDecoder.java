package newsfeed.common.kafka;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import newsfeed.common.events.OutboundPostedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Turns a polled batch into the events the consumers of inbound and search process: each post once (the same post
 * twice in one batch, e.g. after a producer retry, is handled once), malformed records logged, counted as
 * newsfeed_events_total{event="failed"} and skipped, since retrying them could never succeed and would block
 * their partition forever.
 */
public final class EventDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(EventDecoder.class);
  private final Counter malformed;

  public EventDecoder(MeterRegistry registry) {
    this.malformed = Counter.builder("newsfeed.events").tag("event", "failed").register(registry);
  }

  public List<OutboundPostedEvent> decode(List<KafkaConsumerRecord<String, String>> records) {
    Map<UUID, OutboundPostedEvent> unique = new LinkedHashMap<>();
    for (KafkaConsumerRecord<String, String> r : records) {
      try {
        OutboundPostedEvent e = OutboundPostedEvent.parse(r.value());
        unique.putIfAbsent(e.eventId(), e);
      } catch (OutboundPostedEvent.MalformedEventException e) {
        malformed.increment();
        LOG.error("skipping malformed event at {}-{}@{}: {}", r.topic(), r.partition(), r.offset(), e.getMessage());
      }
    }
    return new ArrayList<>(unique.values());
  }
}
