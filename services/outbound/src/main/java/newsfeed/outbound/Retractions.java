package newsfeed.outbound;

import newsfeed.common.events.OutboundRetractedEvent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Publishes the retraction of each post answered 503 after its publish failed: the failed send may still have
 * reached the broker (its answer was lost, or it timed out in flight), and then friends and search would get a post
 * its client was told failed. In the background, retried every {@link #RETRY_EVERY_MS} while Kafka is away, for
 * up to {@link #ATTEMPTS} attempts; at most {@link #MAX_PENDING} wait at once (a Kafka outage under a high post
 * rate must not grow the heap without bound). A retraction abandoned, or pending when the process stops, is
 * published again by the {@link Reconciler} from the post's pending entry (counted and logged meanwhile).
 */
final class Retractions {
  private static final Logger LOG = LoggerFactory.getLogger(Retractions.class);
  static final long RETRY_EVERY_MS = 5_000;
  static final int ATTEMPTS = 120;
  static final int MAX_PENDING = 10_000;

  private final Vertx vertx;
  private final EventPublisher publisher;
  private final AtomicInteger pending = new AtomicInteger();
  private final Counter published;
  private final Counter abandoned;

  Retractions(Vertx vertx, EventPublisher publisher, MeterRegistry registry) {
    this.vertx = vertx;
    this.publisher = publisher;
    this.published = outcome(registry, "published");
    this.abandoned = outcome(registry, "abandoned");
    Gauge.builder("newsfeed.outbound.retractions.pending", pending, AtomicInteger::get)
        .description("retractions of failed posts waiting for Kafka").register(registry);
  }

  private static Counter outcome(MeterRegistry registry, String outcome) {
    return Counter.builder("newsfeed.outbound.retractions").tag("outcome", outcome)
        .description("retractions of posts answered 503 after a failed publish, by how they ended").register(registry);
  }

  /** Starts publishing the retraction; returns at once. */
  void retract(OutboundRetractedEvent event) {
    if (pending.incrementAndGet() > MAX_PENDING) {
      pending.decrementAndGet();
      giveUp(event, "too many retractions waiting");
      return;
    }
    attempt(event, 1);
  }

  int pending() {
    return pending.get();
  }

  private void attempt(OutboundRetractedEvent event, int attempt) {
    publisher.publish(event).onComplete(ar -> {
      if (ar.succeeded()) {
        pending.decrementAndGet();
        published.increment();
      } else if (attempt >= ATTEMPTS) {
        pending.decrementAndGet();
        giveUp(event, ar.cause().toString());
      } else {
        vertx.setTimer(RETRY_EVERY_MS, t -> attempt(event, attempt + 1));
      }
    });
  }

  private void giveUp(OutboundRetractedEvent event, String why) {
    abandoned.increment();
    LOG.error("post {}/{} answered 503 may be visible to friends and search until the reconciler retracts it: its "
        + "retraction (writtenMicros {}) was abandoned ({})", event.participantId(), event.eventId(),
        event.writtenMicros(), why);
  }
}
