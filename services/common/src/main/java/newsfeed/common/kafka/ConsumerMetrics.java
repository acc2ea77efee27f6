package newsfeed.common.kafka;

import newsfeed.common.metrics.StoreTimers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.kafka.client.common.TopicPartition;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The consumer's series of docs/contracts.md: newsfeed_events_total{event=consumed|redelivered|failed|dead_lettered},
 * newsfeed_kafka_consumer_lag_records{group,topic,partition} (only for partitions this instance owns) and
 * the offset commit as newsfeed_store_client_seconds{store=kafka,operation=commit}.
 */
public final class ConsumerMetrics {
  private final MeterRegistry registry;
  private final String group;
  private final Counter consumed;
  private final Counter redelivered;
  private final Counter failed;
  private final Counter deadLettered;
  private final Timer commitSuccess;
  private final Timer commitError;
  private final Map<TopicPartition, AtomicLong> lag = new ConcurrentHashMap<>();
  private final Map<TopicPartition, Gauge> lagGauges = new ConcurrentHashMap<>();

  public ConsumerMetrics(MeterRegistry registry, String group) {
    this.registry = registry;
    this.group = group;
    this.consumed = events("consumed");
    this.redelivered = events("redelivered");
    this.failed = events("failed");
    this.deadLettered = events("dead_lettered");
    this.commitSuccess = StoreTimers.timer(registry, "kafka", "commit", "success");
    this.commitError = StoreTimers.timer(registry, "kafka", "commit", "error");
  }

  private Counter events(String event) {
    return Counter.builder("newsfeed.events").tag("event", event).register(registry);
  }

  void consumed(int n) {
    consumed.increment(n);
  }

  void redelivered(int n) {
    redelivered.increment(n);
  }

  void failed(int n) {
    failed.increment(n);
  }

  void deadLettered(int n) {
    deadLettered.increment(n);
  }

  /** Records waiting in the partitions this instance owns, as of the last lag refresh. */
  long ownedLag() {
    long sum = 0;
    for (AtomicLong v : lag.values()) {
      sum += v.get();
    }
    return sum;
  }

  <T> Future<T> timeCommit(Supplier<Future<T>> commit) {
    return StoreTimers.time(commit, commitSuccess, commitError);
  }

  void assigned(Set<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      lagGauges.computeIfAbsent(tp, p -> Gauge.builder("newsfeed.kafka.consumer.lag.records",
          lag.computeIfAbsent(p, k -> new AtomicLong()), AtomicLong::get)
          .tag("group", group).tag("topic", p.getTopic()).tag("partition", Integer.toString(p.getPartition()))
          .register(registry));
    }
  }

  void revoked(Set<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      Gauge g = lagGauges.remove(tp);
      if (g != null) {
        registry.remove(g);
      }
      lag.remove(tp);
    }
  }

  /** Sets the lag of an owned partition (end offset minus committed offset). */
  public void lag(TopicPartition tp, long records) {
    AtomicLong value = lag.get(tp);
    if (value != null) {
      value.set(Math.max(0, records));
    }
  }
}
