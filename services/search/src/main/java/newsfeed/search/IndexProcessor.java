package newsfeed.search;

import newsfeed.common.events.OutboundEvent;
import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.events.OutboundRetractedEvent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import newsfeed.common.kafka.EventDecoder;
import newsfeed.common.kafka.KafkaBatchConsumer;
import newsfeed.common.metrics.OperationTimer;
import newsfeed.common.tracing.RecordTracing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Indexes a batch of "outbound posted" events into Solr with one update request, then applies the retractions
 * among them. Solr orders a post and its retraction by their write timestamps (SolrIndex), not by arrival, so the
 * two may be applied in either order. The batch succeeds once Solr accepted every request, which is what lets the
 * consumer commit the batch's offsets.
 */
public final class IndexProcessor implements KafkaBatchConsumer.BatchProcessor {

  private final SolrIndex index;
  private final Timer indexDelay;
  private final OperationTimer indexTimer;
  private final Counter retracted;

  public IndexProcessor(SolrIndex index, MeterRegistry registry) {
    this.index = index;
    this.indexDelay = Timer.builder("newsfeed.search.index.delay").register(registry);
    this.indexTimer = new OperationTimer(registry, "search", "store");
    this.retracted = Counter.builder("newsfeed.events").tag("event", "retracted").register(registry);
  }

  @Override
  public Future<Void> process(List<KafkaConsumerRecord<String, String>> records) {
    return RecordTracing.consumeBatch(records, "index", () -> indexBatch(records));
  }

  private Future<Void> indexBatch(List<KafkaConsumerRecord<String, String>> records) {
    List<OutboundPostedEvent> posts = new ArrayList<>();
    List<OutboundRetractedEvent> retractions = new ArrayList<>();
    for (OutboundEvent e : EventDecoder.decode(records)) {
      if (e instanceof OutboundPostedEvent post) {
        posts.add(post);
      } else {
        retractions.add((OutboundRetractedEvent) e);
      }
    }
    return indexAll(posts).compose(v -> retractions.isEmpty() ? Future.succeededFuture()
        : index.retract(retractions).onSuccess(r -> retracted.increment(retractions.size())));
  }

  private Future<Void> indexAll(List<OutboundPostedEvent> posts) {
    if (posts.isEmpty()) {
      return Future.succeededFuture();
    }
    return indexTimer.time(() -> index.index(posts)).andThen(ar -> {
      if (ar.succeeded()) {
        long now = System.currentTimeMillis();
        posts.forEach(e -> indexDelay.record(Math.max(0, now - e.postedAtMillis()), TimeUnit.MILLISECONDS));
      }
    });
  }
}
