package newsfeed.common.testing;

import io.vertx.core.json.JsonObject;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import newsfeed.common.events.OutboundEvent;
import newsfeed.common.kafka.EventConsumerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** Real Kafka for tests: a topic of its own per test class, and events in the contract's shape. */
public final class TestEvents implements AutoCloseable {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final long UUID_EPOCH_OFFSET = 0x01B21DD213814000L;

  private final String bootstrap;
  private final KafkaProducer<String, String> producer;

  public TestEvents(String bootstrap) {
    this.bootstrap = bootstrap;
    this.producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, "acks", "all"),
        new StringSerializer(), new StringSerializer());
  }

  /** Creates a fresh topic so the consumer under test reads only this test's events. */
  public String createTopic(String prefix, int partitions) throws Exception {
    String topic = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    return topic;
  }

  /** Creates the dead-letter topic of the group on the topic (the stack and the chart create it in production). */
  public String createDeadLetterTopic(String topic, String group) throws Exception {
    String deadLetters = EventConsumerConfig.deadLetterTopic(topic, group);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(deadLetters, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    return deadLetters;
  }

  /** Every record of the topic from its start, waiting up to the timeout until there are at least {@code atLeast}. */
  public List<ConsumerRecord<String, String>> readAll(String topic, int atLeast, Duration timeout) {
    List<ConsumerRecord<String, String>> got = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
        Map.of("bootstrap.servers", bootstrap, "group.id", "it-reader-" + UUID.randomUUID(),
            "auto.offset.reset", "earliest", "enable.auto.commit", "false"),
        new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (got.size() < atLeast && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(300)).forEach(got::add);
      }
      // whatever else is already there: a test asserting "exactly n" must see an extra record
      consumer.poll(Duration.ofMillis(500)).forEach(got::add);
    }
    return got;
  }

  public void deleteTopic(String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
    }
  }

  /** Per partition of the topic (0 to {@code partitions} - 1): its end offset minus the group's committed offset. */
  public Map<Integer, Long> uncommitted(String topic, int partitions, String group) {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      Map<Integer, Long> lag = new TreeMap<>();
      admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).forEach((partition, end) -> {
        OffsetAndMetadata c = committed.get(partition);
        lag.put(partition.partition(), end.offset() - (c == null ? 0 : c.offset()));
      });
      return lag;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Publishes one "outbound posted" event, keyed by the poster like outbound does, and waits for the ack. */
  public void publish(String topic, UUID eventId, long participantId, String subject, String story) throws Exception {
    publishRaw(topic, Long.toString(participantId), json(eventId, participantId, subject, story).encode());
  }

  /** Publishes an event as outbound does (keyed by the poster) and waits for the ack. */
  public void publish(String topic, OutboundEvent event) throws Exception {
    publishRaw(topic, Long.toString(event.participantId()), event.toJson().encode());
  }

  public void publishRaw(String topic, String key, String value) throws Exception {
    producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
  }

  public static JsonObject json(UUID eventId, long participantId, String subject, String story) {
    long millis = (eventId.timestamp() - UUID_EPOCH_OFFSET) / 10_000;
    return new JsonObject().put("eventId", eventId.toString()).put("participantId", participantId)
        .put("from", "/participant/" + participantId).put("occurred", Instant.ofEpochMilli(millis).toString())
        .put("subject", subject).put("story", story).put("postedAtMillis", System.currentTimeMillis());
  }

  /** A version-1 UUID for "now" with a random node, like Cassandra's now(). */
  public static UUID timeUuid() {
    return timeUuidAt(System.currentTimeMillis() * 10_000 + UUID_EPOCH_OFFSET + RANDOM.nextInt(10_000),
        RANDOM.nextLong());
  }

  /**
   * A version-1 UUID at a chosen 100-ns timestamp (counted from 1582, as UUID.timestamp() gives it) whose clock
   * sequence and node are the low 62 bits of {@code node}: two posts of one instant, or rows in a known order.
   */
  public static UUID timeUuidAt(long timestamp, long node) {
    long msb = (timestamp << 32) | ((timestamp >>> 16) & 0xFFFF0000L) | 0x1000L | ((timestamp >>> 48) & 0x0FFFL);
    return new UUID(msb, 0x8000000000000000L | (node & 0x3FFFFFFFFFFFFFFFL));
  }

  /** A random word that appears in no other test's posts. */
  public static String uniqueWord() {
    return "zq" + Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36);
  }

  public static long randomParticipantId() {
    return 1_000_000_000L + (RANDOM.nextLong() & 0xFFFFFFFFL);
  }

  @Override
  public void close() {
    producer.close();
  }
}
