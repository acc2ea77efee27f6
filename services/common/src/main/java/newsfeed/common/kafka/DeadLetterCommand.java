package newsfeed.common.kafka;

import io.vertx.core.json.JsonObject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar <service>.jar dead-letters list|replay}: what a consumer group moved to its dead-letter topic, and
 * putting it back. Runs with the service's own environment (in a pod: {@code kubectl exec}), so it reads the same
 * topics as the service.
 *
 * <ul>
 *   <li>{@code list} prints every dead-lettered record still retained, one JSON object a line (offset, where it came
 *   from, the error, the record).
 *   <li>{@code replay} copies the records not replayed yet back to the source topic, marked for this group only
 *   ({@link #REPLAYED_FOR}; the other group skips them), then remembers how far it got (consumer group
 *   {@code <group>.dead-letter-replay}), so running it twice replays nothing twice. A record that fails again
 *   comes back to the dead-letter topic as a new record.
 * </ul>
 */
public final class DeadLetterCommand {
  /** Header of a replayed record: the consumer group it is meant for. */
  public static final String REPLAYED_FOR = "newsfeed-replayed-for";
  private static final Duration POLL = Duration.ofMillis(500);
  private static final long READ_TIMEOUT_MS = 60_000;

  private DeadLetterCommand() {
  }

  /** Runs the command named by {@code args[1]}; returns the exit status. */
  public static int run(String[] args, EventConsumerConfig config, PrintStream out, PrintStream err) {
    String action = args.length == 2 ? args[1] : "";
    try {
      switch (action) {
        case "list" -> list(config, out, err);
        case "replay" -> replay(config, out);
        default -> {
          err.println("usage: dead-letters list|replay");
          return 2;
        }
      }
      return 0;
    } catch (Exception e) {
      err.println("dead-letters " + action + " failed: " + e);
      return 1;
    }
  }

  static void list(EventConsumerConfig config, PrintStream out, PrintStream err) {
    int n = 0;
    try (KafkaConsumer<String, String> consumer = consumer(config, null)) {
      List<TopicPartition> parts = partitions(consumer, config.deadLetterTopic());
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      for (ConsumerRecord<String, String> r : readToEnd(consumer, parts)) {
        out.println(describe(r).encode());
        n++;
      }
    }
    err.println(n + " dead-lettered records in " + config.deadLetterTopic());
  }

  static void replay(EventConsumerConfig config, PrintStream out) throws Exception {
    String replayGroup = config.group() + ".dead-letter-replay";
    try (KafkaConsumer<String, String> consumer = consumer(config, replayGroup);
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(config),
            new StringSerializer(), new StringSerializer())) {
      List<TopicPartition> parts = partitions(consumer, config.deadLetterTopic());
      consumer.assign(parts);
      Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(java.util.Set.copyOf(parts));
      for (TopicPartition tp : parts) {
        OffsetAndMetadata done = committed.get(tp);
        if (done == null) {
          consumer.seekToBeginning(List.of(tp));
        } else {
          consumer.seek(tp, done.offset());
        }
      }
      List<ConsumerRecord<String, String>> records = readToEnd(consumer, parts);
      List<Future<?>> sent = new ArrayList<>(records.size());
      Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
      for (ConsumerRecord<String, String> r : records) {
        ProducerRecord<String, String> copy = new ProducerRecord<>(config.topic(), r.key(), r.value());
        for (Header h : r.headers()) {
          if (!h.key().startsWith("newsfeed-")) {
            copy.headers().add(h);
          }
        }
        copy.headers().add(REPLAYED_FOR, config.group().getBytes(StandardCharsets.UTF_8));
        sent.add(producer.send(copy));
        next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
      }
      producer.flush();
      for (Future<?> f : sent) {
        f.get(30, TimeUnit.SECONDS);   // every copy acknowledged before the replay's offsets move on
      }
      if (!next.isEmpty()) {
        consumer.commitSync(next);
      }
      out.println("replayed " + records.size() + " records from " + config.deadLetterTopic() + " to "
          + config.topic() + " for " + config.group());
    }
  }

  static JsonObject describe(ConsumerRecord<String, String> r) {
    JsonObject headers = new JsonObject();
    for (Header h : r.headers()) {
      headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
    }
    return new JsonObject().put("offset", r.offset())
        .put("source", headers.getString(DeadLetters.SOURCE))
        .put("error", headers.getString(DeadLetters.ERROR))
        .put("errorClass", headers.getString(DeadLetters.ERROR_CLASS))
        .put("attempts", headers.getString(DeadLetters.ATTEMPTS))
        .put("deadLetteredAt", headers.getString(DeadLetters.DEAD_LETTERED_AT))
        .put("key", r.key())
        .put("value", r.value());
  }

  private static Map<String, Object> producerConfig(EventConsumerConfig config) {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", config.bootstrapServers());
    c.put("acks", "all");
    c.put("enable.idempotence", "true");
    config.security().applyTo(c);
    return c;
  }

  private static KafkaConsumer<String, String> consumer(EventConsumerConfig config, String group) {
    Map<String, Object> c = new HashMap<>();
    c.put("bootstrap.servers", config.bootstrapServers());
    config.security().applyTo(c);
    c.put("enable.auto.commit", "false");
    c.put("auto.offset.reset", "earliest");
    c.put("default.api.timeout.ms", "30000");
    if (group != null) {
      c.put("group.id", group);
    }
    return new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
  }

  private static List<TopicPartition> partitions(KafkaConsumer<String, String> consumer, String topic) {
    List<PartitionInfo> infos = consumer.partitionsFor(topic);
    if (infos == null || infos.isEmpty()) {
      throw new IllegalStateException("topic " + topic + " does not exist");
    }
    List<TopicPartition> parts = new ArrayList<>(infos.size());
    infos.forEach(p -> parts.add(new TopicPartition(p.topic(), p.partition())));
    return parts;
  }

  /** The records from the current positions up to the end offsets as they were when it started. */
  private static List<ConsumerRecord<String, String>> readToEnd(KafkaConsumer<String, String> consumer,
                                                                List<TopicPartition> parts) {
    Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
    List<ConsumerRecord<String, String>> got = new ArrayList<>();
    long deadline = System.currentTimeMillis() + READ_TIMEOUT_MS;
    while (!reached(consumer, ends)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("could not read up to the end offsets " + ends + " within 60 s");
      }
      for (ConsumerRecord<String, String> r : consumer.poll(POLL)) {
        if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition()))) {
          got.add(r);
        }
      }
    }
    return got;
  }

  private static boolean reached(KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> ends) {
    for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
