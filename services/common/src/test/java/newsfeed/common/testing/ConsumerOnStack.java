package newsfeed.common.testing;

import newsfeed.common.events.OutboundEvent;
import newsfeed.common.kafka.ConsumerTuning;
import newsfeed.common.kafka.EventConsumerConfig;
import newsfeed.common.kafka.KafkaSecurity;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The common setup of a consuming service's ITs (inbound, search), as a JUnit extension on a static field
 * ({@code @RegisterExtension static final ConsumerOnStack stack = new ConsumerOnStack("it-x");}): on the running
 * stack's Kafka a topic of three partitions, a consumer group and the group's dead-letter topic of the class's own;
 * a Vert.x, an HTTP client and a free port to deploy the service on. After the class the Vert.x is closed (the
 * service with it), then the topics are deleted.
 */
public final class ConsumerOnStack implements BeforeAllCallback, AfterAllCallback {
  private static final int PARTITIONS = 3;
  private static final int DEAD_LETTER_ATTEMPTS = 3;
  private static final Duration STALL_AFTER = Duration.ofSeconds(120);

  private final String prefix;
  private final String group;
  private TestEvents events;
  private String topic;
  private Vertx vertx;
  private WebClient http;
  private int port;

  public ConsumerOnStack(String prefix) {
    this.prefix = prefix;
    this.group = prefix + "-" + UUID.randomUUID();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    events = new TestEvents(StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"));
    topic = events.createTopic(prefix, PARTITIONS);
    events.createDeadLetterTopic(topic, group);
    vertx = Vertx.vertx();
    http = WebClient.create(vertx);
    port = Waiting.freePort();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (vertx != null) {
      vertx.close().await();
    }
    if (events != null) {
      events.deleteTopic(topic);
      events.deleteTopic(deadLetters());
      events.close();
    }
  }

  public Vertx vertx() {
    return vertx;
  }

  public WebClient http() {
    return http;
  }

  /** The port to deploy the service on. */
  public int port() {
    return port;
  }

  /** Sends a GET of {@code uri} to the service on {@link #port()} and waits for the answer. */
  public HttpResponse<Buffer> get(String uri) {
    return http.get(port, "127.0.0.1", uri).send().await();
  }

  /** The service's consumer settings: the class's topic, group and dead-letter topic. */
  public EventConsumerConfig consumerConfig(ConsumerTuning tuning) {
    return new EventConsumerConfig(StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"), KafkaSecurity.PLAINTEXT, topic, group,
        deadLetters(), DEAD_LETTER_ATTEMPTS, STALL_AFTER, tuning);
  }

  public void publish(UUID eventId, long participantId, String subject, String story) throws Exception {
    events.publish(topic, eventId, participantId, subject, story);
  }

  public void publish(OutboundEvent event) throws Exception {
    events.publish(topic, event);
  }

  public void publishRaw(String key, String value) throws Exception {
    events.publishRaw(topic, key, value);
  }

  /** The records of the dead-letter topic, as {@link TestEvents#readAll} reads them. */
  public List<ConsumerRecord<String, String>> deadLettered(int atLeast, Duration timeout) {
    return events.readAll(deadLetters(), atLeast, timeout);
  }

  /** Per partition: the topic's end offset minus the group's committed offset. */
  public Map<Integer, Long> uncommitted() {
    return events.uncommitted(topic, PARTITIONS, group);
  }

  private String deadLetters() {
    return EventConsumerConfig.deadLetterTopic(topic, group);
  }
}
