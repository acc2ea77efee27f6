package newsfeed.socialgraph;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Writes answered 503 without knowing whether PostgreSQL applied them ({@link Postgres.Unresolved}), undone in the
 * background as soon as PostgreSQL answers, so what a client was told failed does not stay: one instance for
 * participants, one for friendships ({@code subject}). Tried every second for 5 minutes; at most 10,000 wait per
 * subject. Counted by newsfeed_socialgraph_cancellations_total{subject,outcome}; each one that may stay is logged at
 * ERROR with what it was.
 *
 * @param <W> what identifies the write to undo (a participant's id; a friendship's pair and request)
 */
final class Cancellations<W> {
  private static final Logger LOG = LoggerFactory.getLogger(Cancellations.class);
  static final long EVERY_MS = 1_000;
  static final long FOR_MS = 5 * 60_000;
  static final int MAX_PENDING = 10_000;

  private final Vertx vertx;
  private final String subject;
  private final Function<W, Future<Cancelled>> undo;
  private final Consumer<W> deleted;
  private final Set<W> pending = ConcurrentHashMap.newKeySet();
  private final Map<Cancelled, Counter> outcomes = new EnumMap<>(Cancelled.class);
  private final Counter abandoned;
  private volatile boolean closed;

  /**
   * {@code undo} deletes what the write stored (in one transaction, and only what no answered request got);
   * {@code deleted} then forgets what the cache may hold of it.
   */
  Cancellations(Vertx vertx, String subject, Function<W, Future<Cancelled>> undo, Consumer<W> deleted,
                MeterRegistry registry) {
    this.vertx = vertx;
    this.subject = subject;
    this.undo = undo;
    this.deleted = deleted;
    outcomes.put(Cancelled.DELETED, counter(registry, "cancelled"));
    outcomes.put(Cancelled.NOT_STORED, counter(registry, "not_stored"));
    outcomes.put(Cancelled.RETRIED, counter(registry, "retried"));
    outcomes.put(Cancelled.KEPT, counter(registry, "kept"));
    abandoned = counter(registry, "abandoned");
    Gauge.builder("newsfeed.socialgraph.cancellations.pending", pending, Set::size).tag("subject", subject)
        .description("writes answered 503 whose cancellation waits for PostgreSQL").register(registry);
  }

  private Counter counter(MeterRegistry registry, String outcome) {
    return Counter.builder("newsfeed.socialgraph.cancellations").tag("subject", subject).tag("outcome", outcome)
        .description("writes answered 503 without knowing whether they were stored, by how their cancellation ended")
        .register(registry);
  }

  /** Undoes {@code write} once PostgreSQL answers. */
  void cancel(W write) {
    if (pending.size() >= MAX_PENDING) {
      giveUp(write, MAX_PENDING + " cancellations wait already");
      return;
    }
    pending.add(write);
    attempt(write, System.currentTimeMillis() + FOR_MS);
  }

  private void attempt(W write, long giveUpAt) {
    if (closed) {
      return;
    }
    undo.apply(write).onComplete(done -> {
      if (done.succeeded()) {
        pending.remove(write);
        ended(write, done.result());
      } else if (System.currentTimeMillis() + EVERY_MS >= giveUpAt) {
        pending.remove(write);
        giveUp(write, "PostgreSQL did not answer for " + FOR_MS / 1000 + " s: " + done.cause());
      } else {
        vertx.setTimer(EVERY_MS, t -> attempt(write, giveUpAt));
      }
    });
  }

  private void ended(W write, Cancelled outcome) {
    outcomes.get(outcome).increment();
    switch (outcome) {
      case DELETED -> {
        // a read between its store and its delete may have cached it
        deleted.accept(write);
        LOG.warn("{} {} was answered 503 and had been stored: deleted", subject, write);
      }
      case KEPT -> LOG.error("{} {} was answered 503 and stays: it was put to use before its cancellation", subject,
          write);
      case RETRIED -> LOG.info("{} {} was answered 503 and stays: a retry with its key was given it", subject, write);
      case NOT_STORED -> LOG.info("{} {} was answered 503 and nothing of it stays", subject, write);
    }
  }

  private void giveUp(W write, String why) {
    abandoned.increment();
    LOG.error("{} {} was answered 503 and may be stored: its cancellation failed ({})", subject, write, why);
  }

  /** Waiting cancellations end with the service: each is logged, as it may stay. */
  void close() {
    closed = true;
    for (W write : pending) {
      giveUp(write, "the service stopped");
    }
    pending.clear();
  }
}
