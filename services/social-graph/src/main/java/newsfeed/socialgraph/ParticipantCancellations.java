package newsfeed.socialgraph;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import newsfeed.socialgraph.ParticipantRepository.Cancelled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Participants whose create was answered 503 without knowing whether PostgreSQL stored them
 * ({@link ParticipantRepository.CreateUnresolved}): deleted in the background as soon as PostgreSQL answers, so a
 * participant its client was told failed does not stay. Tried every second for 5 minutes; at most 10,000 wait.
 * Counted by newsfeed_socialgraph_cancellations_total{outcome}; each one that may stay is logged at ERROR with its id.
 */
final class ParticipantCancellations {
  private static final Logger LOG = LoggerFactory.getLogger(ParticipantCancellations.class);
  static final long EVERY_MS = 1_000;
  static final long FOR_MS = 5 * 60_000;
  static final int MAX_PENDING = 10_000;

  private final Vertx vertx;
  private final ParticipantRepository participants;
  private final GraphCache cache;
  private final Set<Long> pending = ConcurrentHashMap.newKeySet();
  private final Map<Cancelled, Counter> outcomes = new EnumMap<>(Cancelled.class);
  private final Counter abandoned;
  private volatile boolean closed;

  ParticipantCancellations(Vertx vertx, ParticipantRepository participants, GraphCache cache, MeterRegistry registry) {
    this.vertx = vertx;
    this.participants = participants;
    this.cache = cache;
    outcomes.put(Cancelled.DELETED, counter(registry, "cancelled"));
    outcomes.put(Cancelled.NOT_STORED, counter(registry, "not_stored"));
    outcomes.put(Cancelled.RETRIED, counter(registry, "retried"));
    outcomes.put(Cancelled.KEPT, counter(registry, "kept"));
    abandoned = counter(registry, "abandoned");
    Gauge.builder("newsfeed.socialgraph.cancellations.pending", pending, Set::size)
        .description("participants answered 503 whose cancellation waits for PostgreSQL").register(registry);
  }

  private static Counter counter(MeterRegistry registry, String outcome) {
    return Counter.builder("newsfeed.socialgraph.cancellations").tag("outcome", outcome)
        .description("participants answered 503 without knowing whether they were stored, by how their cancellation"
            + " ended")
        .register(registry);
  }

  /** Deletes participant {@code id} once PostgreSQL answers (unless a retry got it or it was befriended meanwhile). */
  void cancel(long id) {
    if (pending.size() >= MAX_PENDING) {
      giveUp(id, MAX_PENDING + " cancellations wait already");
      return;
    }
    pending.add(id);
    attempt(id, System.currentTimeMillis() + FOR_MS);
  }

  private void attempt(long id, long giveUpAt) {
    if (closed) {
      return;
    }
    participants.cancel(id).onComplete(done -> {
      if (done.succeeded()) {
        pending.remove(id);
        ended(id, done.result());
      } else if (System.currentTimeMillis() + EVERY_MS >= giveUpAt) {
        pending.remove(id);
        giveUp(id, "PostgreSQL did not answer for " + FOR_MS / 1000 + " s: " + done.cause());
      } else {
        vertx.setTimer(EVERY_MS, t -> attempt(id, giveUpAt));
      }
    });
  }

  private void ended(long id, Cancelled outcome) {
    outcomes.get(outcome).increment();
    switch (outcome) {
      case DELETED -> {
        // a read between its store and its delete may have cached it (or its empty friend list)
        cache.forgetParticipant(id);
        cache.invalidateFriends(id);
        LOG.warn("participant {} was answered 503 and had been stored: deleted", id);
      }
      case KEPT ->
        LOG.error("participant {} was answered 503 and stays: it was befriended before its cancellation", id);
      case RETRIED -> LOG.info("participant {} was answered 503 and stays: a retry with its key was given it", id);
      case NOT_STORED -> LOG.info("participant {} was answered 503 and was not stored", id);
    }
  }

  private void giveUp(long id, String why) {
    abandoned.increment();
    LOG.error("participant {} was answered 503 and may be stored: its cancellation failed ({})", id, why);
  }

  /** Waiting cancellations end with the service: each is logged, as it may stay. */
  void close() {
    closed = true;
    for (Long id : pending) {
      giveUp(id, "the service stopped");
    }
    pending.clear();
  }
}
