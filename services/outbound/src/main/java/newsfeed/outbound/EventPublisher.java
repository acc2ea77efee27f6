package newsfeed.outbound;

import newsfeed.common.events.OutboundEvent;
import newsfeed.common.kafka.KafkaAdmin;
import newsfeed.common.kafka.KafkaSecurity;
import newsfeed.common.metrics.StoreTimers;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.kafka.admin.KafkaAdminClient;
import io.vertx.kafka.client.producer.KafkaProducer;
import io.vertx.kafka.client.producer.KafkaProducerRecord;
import org.apache.kafka.common.errors.AuthenticationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Publishes the outbound events (docs/contracts.md), keyed by the poster so one participant's posts and
 * retractions stay in order on one partition. The producer waits for every in-sync replica (acks=all) and is idempotent, so its
 * own retries never duplicate; every wait is bounded, so a send fails within {@link #WORST_CASE_MS} when the
 * broker is away instead of holding the request.
 */
public final class EventPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(EventPublisher.class);
  static final int MAX_BLOCK_MS = 3_000;        // waiting for metadata (an unreachable broker) or buffer space
  static final int REQUEST_TIMEOUT_MS = 3_000;  // one produce request
  static final int LINGER_MS = 5;
  static final int DELIVERY_TIMEOUT_MS = 6_000; // the whole send, retries included (>= linger + request timeout)
  static final int WORST_CASE_MS = MAX_BLOCK_MS + DELIVERY_TIMEOUT_MS;

  private final Vertx vertx;
  private final Map<String, String> producerConfig;
  private volatile KafkaProducer<String, String> producer;   // replaced after a failed login (renewedAfter)
  private final KafkaAdminClient admin;
  private final String topic;
  private final Timer produceOk;
  private final Timer produceError;
  private final Counter produced;
  private final Counter failed;

  public EventPublisher(Vertx vertx, String bootstrapServers, KafkaSecurity security, String topic,
                        MeterRegistry registry) {
    this.vertx = vertx;
    this.producerConfig = producerConfig(bootstrapServers, security);
    this.producer = newProducer();
    this.admin = KafkaAdmin.create(vertx, bootstrapServers, security);
    this.topic = topic;
    this.produceOk = StoreTimers.timer(registry, "kafka", "produce", "success");
    this.produceError = StoreTimers.timer(registry, "kafka", "produce", "error");
    this.produced = Counter.builder("newsfeed.events").tag("event", "produced").register(registry);
    this.failed = Counter.builder("newsfeed.events").tag("event", "failed").register(registry);
  }

  /** Completes once the broker acknowledged the event on all in-sync replicas. */
  public Future<Void> publish(OutboundEvent event) {
    KafkaProducerRecord<String, String> record = KafkaProducerRecord.create(topic,
        Long.toString(event.participantId()), event.toJson().encode());
    KafkaProducer<String, String> sender = producer;
    return StoreTimers.time(() -> sender.send(record).recover(err -> {
      if (!loginFailed(err)) {
        return Future.failedFuture(err);
      }
      return renewedAfter(sender).send(record);
    }), produceOk, produceError)
        .andThen(ar -> (ar.succeeded() ? produced : failed).increment())
        .mapEmpty();
  }

  private KafkaProducer<String, String> newProducer() {
    KafkaProducer<String, String> p = KafkaProducer.create(vertx, producerConfig);
    // a failed send already fails its request's future (503, counted, logged by the handler); without a handler
    // Vert.x would also log each one as an unhandled exception, hundreds of lines per broker outage
    p.exceptionHandler(err -> LOG.debug("kafka producer: {}", err.toString()));
    return p;
  }

  /**
   * A producer whose login failed (e.g. it started before the schema Job created its user) reports that error once
   * more on a later send although it has logged in since, and its idempotence setup, refused at the time, leaves
   * every later record waiting until it expires: the first send that sees a failed login replaces it with a new
   * producer (concurrent ones use that one) and the old one is closed.
   */
  private synchronized KafkaProducer<String, String> renewedAfter(KafkaProducer<String, String> failedProducer) {
    if (producer == failedProducer) {
      LOG.warn("kafka: the producer's login failed, starting a new producer");
      producer = newProducer();
      failedProducer.close(0);
    }
    return producer;
  }

  /** A failed login: the broker never received the record, so sending it again cannot duplicate it. */
  static boolean loginFailed(Throwable err) {
    for (Throwable t = err; t != null; t = t.getCause()) {
      if (t instanceof AuthenticationException) {
        return true;
      }
    }
    return false;
  }

  /** Readiness: the broker answers within the timeout. */
  public Future<Void> checkBroker(long timeoutMs) {
    return admin.describeCluster().timeout(timeoutMs, TimeUnit.MILLISECONDS).mapEmpty();
  }

  /** Sends what is still buffered (bounded by the delivery timeout), then closes producer and admin client. */
  public Future<Void> close() {
    return producer.flush()
        .transform(ar -> producer.close(DELIVERY_TIMEOUT_MS))
        .transform(ar -> admin.close(2_000));
  }

  static Map<String, String> producerConfig(String bootstrapServers, KafkaSecurity security) {
    Map<String, String> c = new HashMap<>();
    c.put("bootstrap.servers", bootstrapServers);
    c.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
    c.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
    c.put("acks", "all");                     // acknowledged only once every in-sync replica has it
    c.put("enable.idempotence", "true");      // producer retries never write an event twice
    c.put("max.in.flight.requests.per.connection", "5");  // the idempotence limit; order per partition kept
    c.put("max.block.ms", Integer.toString(MAX_BLOCK_MS));
    c.put("request.timeout.ms", Integer.toString(REQUEST_TIMEOUT_MS));
    c.put("delivery.timeout.ms", Integer.toString(DELIVERY_TIMEOUT_MS));
    c.put("linger.ms", Integer.toString(LINGER_MS));
    c.put("client.id", "newsfeed-outbound-" + ProcessHandle.current().pid());
    security.applyTo(c);
    return c;
  }
}
