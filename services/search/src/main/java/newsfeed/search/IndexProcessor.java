package newsfeed.search;

import newsfeed.common.events.OutboundPostedEvent;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import newsfeed.common.kafka.EventDecoder;
import newsfeed.common.kafka.KafkaBatchConsumer;
import newsfeed.common.metrics.OperationTimer;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Indexes a batch of "outbound posted" events into Solr with one update request. The batch succeeds once Solr
 * accepted every document, which is what lets the consumer commit the batch's offsets.
 */
public final class IndexProcessor implements KafkaBatchConsumer.BatchProcessor {

  private final SolrIndex index;
  private final Timer indexDelay;
  private final OperationTimer indexTimer;

  public IndexProcessor(SolrIndex index, MeterRegistry registry) {
    this.index = index;
    this.indexDelay = Timer.builder("newsfeed.search.index.delay").register(registry);
    this.indexTimer = new OperationTimer(registry, "search", "store");
  }

  @Override
  public Future<Void> process(List<KafkaConsumerRecord<String, String>> records) {
    List<OutboundPostedEvent> decoded = EventDecoder.decode(records);
    if (decoded.isEmpty()) {
      return Future.succeededFuture();
    }
    return indexTimer.time(() -> index.index(decoded)).andThen(ar -> {
      if (ar.succeeded()) {
        long now = System.currentTimeMillis();
        decoded.forEach(e -> indexDelay.record(Math.max(0, now - e.postedAtMillis()), TimeUnit.MILLISECONDS));
      }
    });
  }
}
