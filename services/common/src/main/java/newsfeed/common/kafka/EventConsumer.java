package newsfeed.common.kafka;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.kafka.client.consumer.KafkaConsumer;
import newsfeed.common.http.HttpBootstrap.Check;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The "outbound posted" consumer of a service (inbound, search): an at-least-once {@link KafkaBatchConsumer} in the
 * service's group, with manual commits after the processor's writes, plus the {@link KafkaGroupMonitor} that
 * checks the broker and reports the lag, and the group's {@link DeadLetters}. One place for the client settings both
 * groups must share.
 */
public final class EventConsumer {
  private final KafkaBatchConsumer consumer;
  private final KafkaGroupMonitor monitor;
  private final DeadLetters deadLetters;

  /** {@code maxPollRecords}: one batch = what the processor handles at once before the commit. */
  public EventConsumer(Vertx vertx, MeterRegistry registry, String service, EventConsumerConfig config,
                       int maxPollRecords, KafkaBatchConsumer.BatchProcessor processor) {
    ConsumerMetrics metrics = new ConsumerMetrics(registry, config.group());
    this.deadLetters = new DeadLetters(vertx, config.bootstrapServers(), config.security(), config.deadLetterTopic(),
        config.group());
    this.consumer = new KafkaBatchConsumer(vertx, KafkaConsumer.create(vertx, consumerConfig(service,
        config.bootstrapServers(), config.security(), config.group(), maxPollRecords, config.tuning())),
        config.topic(), config.group(), processor, metrics, deadLetters, config.deadLetterAttempts(),
        config.stallAfter());
    this.monitor = new KafkaGroupMonitor(vertx,
        KafkaAdmin.create(vertx, config.bootstrapServers(), config.security()), config.group(), metrics,
        consumer::assignment);
  }

  static Map<String, String> consumerConfig(String service, String bootstrapServers, KafkaSecurity security,
                                            String group, int maxPollRecords, ConsumerTuning tuning) {
    Map<String, String> c = new HashMap<>();
    c.put("bootstrap.servers", bootstrapServers);
    c.put("group.id", group);
    c.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    c.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    c.put("enable.auto.commit", "false");          // offsets are committed only after the processor's writes
    c.put("auto.offset.reset", "earliest");        // a new group must not skip posts made before it started
    c.put("max.poll.records", Integer.toString(maxPollRecords));
    // a topic the consumer could not see when it joined (ACLs not yet made, partitions added) is assigned at the next
    // metadata refresh: 30 s instead of Kafka's 5 min
    c.put("metadata.max.age.ms", "30000");
    c.put("client.id", "newsfeed-" + service + "-" + ProcessHandle.current().pid());
    tuning.applyTo(c);
    security.applyTo(c);
    return c;
  }

  /**
   * The event path's health (/health/events, not readiness: the HTTP API needs no Kafka): the broker answers, the
   * poll loop made progress, and records waiting are being committed.
   */
  public List<Check> healthChecks() {
    return List.of(
        new Check("kafka", () -> monitor.checkBroker(2_000)),
        new Check("consumer", () -> {
          String reason = consumer.unhealthyReason();
          return reason == null ? Future.succeededFuture() : Future.failedFuture(reason);
        }));
  }

  public Future<Void> start() {
    return consumer.start().onSuccess(v -> monitor.start());
  }

  /** Lets the batch in flight finish and commit (bounded by the grace period), then closes the clients. */
  public Future<Void> stop(Duration grace) {
    return consumer.stop(grace).transform(ar -> monitor.stop()).transform(ar -> deadLetters.close());
  }
}
