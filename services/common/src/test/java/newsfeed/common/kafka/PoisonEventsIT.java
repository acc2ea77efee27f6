package newsfeed.common.kafka;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import newsfeed.common.http.HttpBootstrap.Check;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.TestEvents;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static newsfeed.common.testing.Waiting.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The consumer against a real broker with processors that fail the way stores do: a record failing permanently is
 * dead-lettered and its partition goes on; a transient failure is retried however long it lasts and never
 * dead-lettered; the dead-letters command lists and replays, for this group only; a consumer with records waiting
 * and nothing committed reports itself unhealthy.
 */
class PoisonEventsIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private Vertx vertx;
  private TestEvents events;
  private String topic;
  private final List<String> topics = new ArrayList<>();
  private final List<EventConsumer> consumers = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    events = new TestEvents(StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"));
    topic = events.createTopic("it-poison", 1);
    topics.add(topic);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (EventConsumer c : consumers) {
      c.stop(Duration.ofSeconds(2)).await();
    }
    vertx.close().await();
    for (String t : topics) {
      events.deleteTopic(t);
    }
    events.close();
  }

  /** Records the values it processed; fails every record whose value contains a word of {@code rejected}. */
  private static final class Recorder implements KafkaBatchConsumer.BatchProcessor {
    final List<String> processed = Collections.synchronizedList(new ArrayList<>());
    final AtomicBoolean rejecting = new AtomicBoolean(true);
    final AtomicInteger transientFailuresLeft = new AtomicInteger();

    @Override
    public Future<Void> process(List<KafkaConsumerRecord<String, String>> records) {
      if (transientFailuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        return Future.failedFuture(new IllegalStateException("store unavailable (transient)"));
      }
      for (KafkaConsumerRecord<String, String> r : records) {
        if (rejecting.get() && r.value().contains("poison")) {
          return Future.failedFuture(new PermanentFailure("store rejected " + r.value()));
        }
      }
      records.forEach(r -> processed.add(r.value()));
      return Future.succeededFuture();
    }
  }

  private EventConsumerConfig config(String group, Duration stallAfter) {
    return new EventConsumerConfig(StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"), KafkaSecurity.PLAINTEXT, topic, group,
        EventConsumerConfig.deadLetterTopic(topic, group), 3, stallAfter, ConsumerTuning.kafkaDefaults());
  }

  private EventConsumer start(EventConsumerConfig config, KafkaBatchConsumer.BatchProcessor processor,
                              PrometheusMeterRegistry registry)
      throws Exception {
    topics.add(events.createDeadLetterTopic(config.topic(), config.group()));
    EventConsumer consumer = new EventConsumer(vertx, registry, "it", config, 100, processor);
    consumers.add(consumer);
    consumer.start().await();
    return consumer;
  }

  private static String header(ConsumerRecord<String, String> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static double counter(PrometheusMeterRegistry registry, String event) {
    return registry.get("newsfeed.events").tag("event", event).counter().count();
  }

  @Test
  void aRecordFailingPermanentlyIsDeadLetteredAndThePartitionMovesOn() throws Exception {
    String group = "it-poison-" + UUID.randomUUID();
    Recorder recorder = new Recorder();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    EventConsumerConfig config = config(group, Duration.ofSeconds(120));
    start(config, recorder, registry);
    events.publishRaw(topic, "1", "before");
    events.publishRaw(topic, "2", "poison pill");
    events.publishRaw(topic, "3", "after");

    eventually(() -> List.copyOf(recorder.processed), p -> p.contains("after"));
    assertEquals(List.of("before", "after"), recorder.processed.stream().distinct().toList());
    List<ConsumerRecord<String, String>> dead = events.readAll(config.deadLetterTopic(), 1, WAIT);
    assertEquals(1, dead.size(), "exactly the poison record is dead-lettered");
    ConsumerRecord<String, String> r = dead.get(0);
    assertEquals("2", r.key());
    assertEquals("poison pill", r.value());
    assertEquals("store rejected poison pill", header(r, DeadLetters.ERROR));
    assertEquals(PermanentFailure.class.getName(), header(r, DeadLetters.ERROR_CLASS));
    assertEquals(topic + "-0@1", header(r, DeadLetters.SOURCE));
    assertEquals(group, header(r, DeadLetters.GROUP));
    assertEquals("3", header(r, DeadLetters.ATTEMPTS));
    assertEquals(1.0, counter(registry, "dead_lettered"));
  }

  @Test
  void aMalformedEventIsDeadLetteredByTheDecoder() throws Exception {
    String group = "it-malformed-" + UUID.randomUUID();
    List<UUID> decoded = Collections.synchronizedList(new ArrayList<>());
    KafkaBatchConsumer.BatchProcessor decoding = records -> {
      EventDecoder.decode(records).forEach(e -> decoded.add(e.eventId()));
      return Future.succeededFuture();
    };
    EventConsumerConfig config = config(group, Duration.ofSeconds(120));
    start(config, decoding, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    UUID good = TestEvents.timeUuid();
    events.publishRaw(topic, "7", "{\"eventId\": \"not a uuid\"}");
    events.publish(topic, good, 7, "fine", "a well-formed post after the malformed one");

    eventually(() -> List.copyOf(decoded), d -> d.contains(good));
    List<ConsumerRecord<String, String>> dead = events.readAll(config.deadLetterTopic(), 1, WAIT);
    assertEquals(1, dead.size());
    assertTrue(header(dead.get(0), DeadLetters.ERROR).contains("eventId is not a UUID"),
        header(dead.get(0), DeadLetters.ERROR));
  }

  @Test
  void transientFailuresAreRetriedLongerThanTheAttemptsAndNeverDeadLettered() throws Exception {
    String group = "it-transient-" + UUID.randomUUID();
    Recorder recorder = new Recorder();
    recorder.transientFailuresLeft.set(6);   // twice the dead-letter attempts
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    EventConsumerConfig config = config(group, Duration.ofSeconds(120));
    start(config, recorder, registry);
    events.publishRaw(topic, "1", "kept through an outage");

    eventually(() -> List.copyOf(recorder.processed), p -> p.contains("kept through an outage"));
    assertEquals(0, recorder.transientFailuresLeft.get());
    assertEquals(0, events.readAll(config.deadLetterTopic(), 0, Duration.ofSeconds(2)).size());
    assertEquals(0.0, counter(registry, "dead_lettered"));
  }

  @Test
  void replayGivesTheRecordsBackToTheirGroupOnlyAndOnlyOnce() throws Exception {
    String group = "it-replay-" + UUID.randomUUID();
    String other = "it-replay-other-" + UUID.randomUUID();
    Recorder recorder = new Recorder();
    Recorder bystander = new Recorder();
    bystander.rejecting.set(false);
    EventConsumerConfig config = config(group, Duration.ofSeconds(120));
    start(config, recorder, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    start(config(other, Duration.ofSeconds(120)), bystander, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    events.publishRaw(topic, "5", "poison until fixed");
    events.readAll(config.deadLetterTopic(), 1, WAIT);
    eventually(() -> List.copyOf(bystander.processed), p -> p.contains("poison until fixed"));

    ByteArrayOutputStream listed = new ByteArrayOutputStream();
    assertEquals(0, DeadLetterCommand.run(new String[] {"dead-letters", "list"}, config,
        new PrintStream(listed, true, StandardCharsets.UTF_8), System.err));
    String line = listed.toString(StandardCharsets.UTF_8).trim();
    assertTrue(line.contains("\"value\":\"poison until fixed\"") && line.contains("\"source\":\"" + topic + "-0@0\""),
        line);

    recorder.rejecting.set(false);   // the cause is fixed (a deployment, a store setting)
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertEquals(0, DeadLetterCommand.run(new String[] {"dead-letters", "replay"}, config,
        new PrintStream(out, true, StandardCharsets.UTF_8), System.err));
    assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("replayed 1 records"), out.toString());
    eventually(() -> List.copyOf(recorder.processed), p -> p.contains("poison until fixed"));

    out.reset();
    assertEquals(0, DeadLetterCommand.run(new String[] {"dead-letters", "replay"}, config,
        new PrintStream(out, true, StandardCharsets.UTF_8), System.err));
    assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("replayed 0 records"), out.toString());
    Thread.sleep(2_000);   // the replayed copy went past the other group by now: it must have skipped it
    assertEquals(1, bystander.processed.size(), "the other group processed the replayed copy: "
        + bystander.processed);
    assertEquals(1, recorder.processed.size());
  }

  @Test
  void aConsumerWithRecordsWaitingAndNoCommitIsUnhealthy() throws Exception {
    String group = "it-stalled-" + UUID.randomUUID();
    Recorder recorder = new Recorder();
    recorder.transientFailuresLeft.set(Integer.MAX_VALUE);   // a store that never comes back
    EventConsumer consumer = start(config(group, Duration.ofSeconds(2)), recorder,
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    Check check = consumer.healthChecks().stream().filter(c -> c.name().equals("consumer")).findFirst().orElseThrow();
    assertTrue(check.probe().get().await() == null, "healthy before anything is waiting");
    events.publishRaw(topic, "1", "stuck");

    String reason = eventually(() -> {
      try {
        check.probe().get().await();
        return "";
      } catch (Exception e) {
        return e.getMessage();
      }
    }, r -> r.contains("records waiting"));
    assertTrue(reason.contains("1 records waiting and no offset committed"), reason);
    assertTrue(reason.contains("store unavailable"), reason);
  }
}
