package newsfeed.common.kafka;

import newsfeed.common.config.Env;

import java.time.Duration;

/**
 * Where and how a service consumes the "outbound posted" events (the KAFKA_* variables of docs/contracts.md), parsed
 * once: the same record configures the service's consumer and its {@code dead-letters} command.
 *
 * @param security           how every Kafka client of the service authenticates (KafkaSecurity)
 * @param deadLetterTopic    where a record that failed permanently {@code deadLetterAttempts} times goes
 * @param stallAfter         the consumer is unhealthy (/health/events) once it owns waiting records and committed
 *                           nothing for this long
 */
public record EventConsumerConfig(String bootstrapServers, KafkaSecurity security, String topic, String group,
                                  String deadLetterTopic, int deadLetterAttempts, Duration stallAfter,
                                  ConsumerTuning tuning) {

  public static EventConsumerConfig fromEnv(Env e, String defaultGroup) {
    String topic = e.string("KAFKA_TOPIC", "outbound-posted");
    String group = e.string("KAFKA_GROUP_ID", defaultGroup);
    return new EventConsumerConfig(
        e.string("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"),
        KafkaSecurity.fromEnv(e),
        topic,
        group,
        e.string("KAFKA_DEAD_LETTER_TOPIC", deadLetterTopic(topic, group)),
        e.integer("KAFKA_DEAD_LETTER_ATTEMPTS", 3, 1, 100),
        Duration.ofSeconds(e.integer("KAFKA_CONSUMER_STALL_SECONDS", 120, 10, 86_400)),
        ConsumerTuning.fromEnv(e));
  }

  /** The default dead-letter topic of a group: one per group, since a record one consumer rejects may suit another. */
  public static String deadLetterTopic(String topic, String group) {
    return topic + "." + group + ".dead-letter";
  }
}
