package newsfeed.search;

import newsfeed.common.OutboundPostedEvent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import newsfeed.common.kafka.KafkaBatchConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Indexes a batch of "outbound posted" events into Solr with one update request. The batch succeeds once Solr
 * accepted every document, which is what lets the consumer commit the batch's offsets.
 */
public final class IndexProcessor implements KafkaBatchConsumer.BatchProcessor {
  private static final Logger LOG = LoggerFactory.getLogger(IndexProcessor.class);

  private final SolrIndex index;
  private final Timer indexDelay;
  private final Timer indexOk;
  private final Timer indexError;
  private final Counter malformed;

  public IndexProcessor(SolrIndex index, MeterRegistry registry) {
    this.index = index;
    this.indexDelay = Timer.builder("newsfeed.search.index.delay").register(registry);
    this.indexOk = operation(registry, "success");
    this.indexError = operation(registry, "error");
    // malformed events are counted as failed too, but can never succeed: they are logged and skipped
    this.malformed = Counter.builder("newsfeed.events").tag("event", "failed").register(registry);
  }

  private static Timer operation(MeterRegistry registry, String outcome) {
    return Timer.builder("newsfeed.operation")
        .tag("entity", "search").tag("operation", "store").tag("outcome", outcome)
        .register(registry);
  }

  @Override
  public Future<Void> process(List<KafkaConsumerRecord<String, String>> records) {
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
    if (unique.isEmpty()) {
      return Future.succeededFuture();
    }
    List<OutboundPostedEvent> events = new ArrayList<>(unique.values());
    long start = System.nanoTime();
    return index.index(events).andThen(ar -> {
      (ar.succeeded() ? indexOk : indexError).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      if (ar.succeeded()) {
        long now = System.currentTimeMillis();
        events.forEach(e -> indexDelay.record(Math.max(0, now - e.postedAtMillis()), TimeUnit.MILLISECONDS));
      }
    });
  }
}
