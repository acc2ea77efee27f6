package newsfeed.common.kafka;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import io.vertx.kafka.client.producer.KafkaHeader;
import io.vertx.kafka.client.producer.KafkaProducer;
import io.vertx.kafka.client.producer.KafkaProducerRecord;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The dead-letter topic of a consumer group: a record that failed permanently is written there unchanged (key,
 * value, headers) with headers saying why and where it came from (docs/reliability.md, "Poison events"), so its
 * partition can move on and the record can be inspected and replayed ({@code dead-letters} command).
 */
public final class DeadLetters {
  public static final String ERROR = "newsfeed-error";
  public static final String ERROR_CLASS = "newsfeed-error-class";
  public static final String SOURCE = "newsfeed-source";
  public static final String GROUP = "newsfeed-group";
  public static final String ATTEMPTS = "newsfeed-attempts";
  public static final String DEAD_LETTERED_AT = "newsfeed-dead-lettered-at";
  private static final int MAX_ERROR_CHARS = 2_000;

  private final KafkaProducer<String, String> producer;
  private final String topic;
  private final String group;

  public DeadLetters(Vertx vertx, String bootstrapServers, KafkaSecurity security, String topic, String group) {
    this.producer = KafkaProducer.create(vertx, producerConfig(bootstrapServers, security));
    this.topic = topic;
    this.group = group;
  }

  static Map<String, String> producerConfig(String bootstrapServers, KafkaSecurity security) {
    Map<String, String> c = new HashMap<>();
    c.put("bootstrap.servers", bootstrapServers);
    c.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
    c.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
    c.put("acks", "all");                  // the source offset is committed right after: the copy must be durable
    c.put("enable.idempotence", "true");
    c.put("max.block.ms", "10000");
    c.put("request.timeout.ms", "10000");
    c.put("delivery.timeout.ms", "30000");
    security.applyTo(c);
    return c;
  }

  public String topic() {
    return topic;
  }

  /** Writes the record to the dead-letter topic; succeeds once the broker acknowledged it. */
  public Future<Void> send(KafkaConsumerRecord<String, String> record, Throwable error, int attempts) {
    KafkaProducerRecord<String, String> copy = KafkaProducerRecord.create(topic, record.key(), record.value());
    for (KafkaHeader h : record.headers()) {
      copy.addHeader(h);
    }
    String message = String.valueOf(error.getMessage());
    copy.addHeader(ERROR, message.length() > MAX_ERROR_CHARS ? message.substring(0, MAX_ERROR_CHARS) : message)
        .addHeader(ERROR_CLASS, error.getClass().getName())
        .addHeader(SOURCE, record.topic() + "-" + record.partition() + "@" + record.offset())
        .addHeader(GROUP, group)
        .addHeader(ATTEMPTS, Integer.toString(attempts))
        .addHeader(DEAD_LETTERED_AT, Instant.now().toString());
    return producer.send(copy).mapEmpty();
  }

  public Future<Void> close() {
    return producer.close(2_000);
  }
}
