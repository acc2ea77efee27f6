package newsfeed.common.kafka;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.kafka.admin.KafkaAdminClient;
import io.vertx.kafka.admin.ListOffsetsResultInfo;
import io.vertx.kafka.admin.OffsetSpec;
import io.vertx.kafka.client.common.TopicPartition;
import io.vertx.kafka.client.consumer.OffsetAndMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Talks to the broker through an admin client, independently of the consumer's single poll thread: the
 * readiness check (is the broker reachable?) and the lag gauge (end offset minus the group's committed
 * offset, for the partitions this instance owns).
 */
public final class KafkaGroupMonitor {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaGroupMonitor.class);
  private static final long LAG_INTERVAL_MS = 10_000;

  private final Vertx vertx;
  private final KafkaAdminClient admin;
  private final String group;
  private final ConsumerMetrics metrics;
  private final Supplier<Set<TopicPartition>> owned;
  private long timer = -1;

  public KafkaGroupMonitor(Vertx vertx, KafkaAdminClient admin, String group, ConsumerMetrics metrics,
                           Supplier<Set<TopicPartition>> owned) {
    this.vertx = vertx;
    this.admin = admin;
    this.group = group;
    this.metrics = metrics;
    this.owned = owned;
  }

  public void start() {
    timer = vertx.setPeriodic(LAG_INTERVAL_MS, id -> refreshLag());
  }

  public Future<Void> stop() {
    vertx.cancelTimer(timer);
    return admin.close(2_000);
  }

  /** Succeeds when the broker answers within the timeout. */
  public Future<Void> checkBroker(long timeoutMs) {
    return admin.describeCluster().timeout(timeoutMs, TimeUnit.MILLISECONDS).mapEmpty();
  }

  void refreshLag() {
    Set<TopicPartition> parts = owned.get();
    if (parts.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    parts.forEach(tp -> latest.put(tp, OffsetSpec.LATEST));
    Future<Map<TopicPartition, ListOffsetsResultInfo>> ends = admin.listOffsets(latest);
    Future<Map<TopicPartition, OffsetAndMetadata>> committed = admin.listConsumerGroupOffsets(group);
    Future.all(ends, committed).onSuccess(v -> {
      for (TopicPartition tp : parts) {
        ListOffsetsResultInfo end = ends.result().get(tp);
        OffsetAndMetadata done = committed.result().get(tp);
        if (end != null) {
          metrics.lag(tp, end.getOffset() - (done == null ? 0 : done.getOffset()));
        }
      }
    }).onFailure(err -> LOG.debug("lag refresh failed: {}", err.toString()));
  }
}
