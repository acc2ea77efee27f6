package newsfeed.socialgraph;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import newsfeed.common.logging.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Writes answered 503 without knowing whether PostgreSQL applied them ({@link Postgres.Unresolved}), undone in the
 * background as soon as PostgreSQL answers, so what a client was told failed does not stay: one instance for
 * participants, one for friendships ({@code subject}). Each is first put in Redis ({@link CancellationBacklog}),
 * leased to this instance, then tried every second for 5 minutes; at most 10,000 wait per subject. One not undone
 * then, or still waiting when the service stops, or beyond the 10,000, is handed back to every instance, and every
 * instance takes such ones (and the ones of an instance that died, once their lease ran out) every 5 s. Counted by
 * newsfeed_socialgraph_cancellations_total{subject,outcome} and the handed_over and taken_over counters; each one
 * that may stay (Redis has it nowhere) is logged at ERROR with what it was.
 *
 * @param <W> what identifies the write to undo (a participant's id; a friendship's pair and request)
 */
final class Cancellations<W> {
  private static final Logger LOG = LoggerFactory.getLogger(Cancellations.class);
  static final long EVERY_MS = 1_000;
  static final long FOR_MS = 5 * 60_000;
  static final int MAX_PENDING = 10_000;
  static final long TAKE_EVERY_MS = 5_000;
  static final int TAKE_AT_MOST = 100;
  /** How long a cancellation is left to the instance trying it: its 5 minutes of tries, and one to hand it back. */
  static final long LEASE_MS = FOR_MS + 60_000;

  private final Vertx vertx;
  private final String subject;
  private final Function<W, Future<Cancelled>> undo;
  private final Consumer<W> deleted;
  private final CancellationBacklog<W> backlog;
  private final Set<W> pending = ConcurrentHashMap.newKeySet();
  // the pending ones Redis has, leased to this instance: another takes them should this one die
  private final Set<W> inRedis = ConcurrentHashMap.newKeySet();
  private final Map<Cancelled, Counter> outcomes = new EnumMap<>(Cancelled.class);
  private final Counter abandoned;
  private final Counter handedOver;
  private final Counter takenOver;
  private final RateLimitedLog redisFailures = new RateLimitedLog(LOG, 60_000);
  private final long takeTimer;
  private volatile boolean closed;

  /**
   * {@code undo} deletes what the write stored (in one transaction, and only what no answered request got);
   * {@code deleted} then forgets what the cache may hold of it.
   */
  Cancellations(Vertx vertx, String subject, Function<W, Future<Cancelled>> undo, Consumer<W> deleted,
                CancellationBacklog<W> backlog, MeterRegistry registry) {
    this.vertx = vertx;
    this.subject = subject;
    this.undo = undo;
    this.deleted = deleted;
    this.backlog = backlog;
    outcomes.put(Cancelled.DELETED, counter(registry, "cancelled"));
    outcomes.put(Cancelled.NOT_STORED, counter(registry, "not_stored"));
    outcomes.put(Cancelled.RETRIED, counter(registry, "retried"));
    outcomes.put(Cancelled.KEPT, counter(registry, "kept"));
    abandoned = counter(registry, "abandoned");
    Gauge.builder("newsfeed.socialgraph.cancellations.pending", pending, Set::size).tag("subject", subject)
        .description("writes answered 503 whose cancellation waits for PostgreSQL").register(registry);
    Gauge.builder("newsfeed.socialgraph.cancellations.backlog", backlog, CancellationBacklog::size)
        .tag("subject", subject)
        .description("cancellations in Redis, tried by an instance or waiting for one (as this instance last saw)")
        .register(registry);
    handedOver = Counter.builder("newsfeed.socialgraph.cancellations.handed.over").tag("subject", subject)
        .description("cancellations this instance could not finish, handed to every instance through Redis")
        .register(registry);
    takenOver = Counter.builder("newsfeed.socialgraph.cancellations.taken.over").tag("subject", subject)
        .description("cancellations this instance took from Redis to finish").register(registry);
    takeTimer = vertx.setPeriodic(TAKE_EVERY_MS, t -> takeOver());
  }

  private Counter counter(MeterRegistry registry, String outcome) {
    return Counter.builder("newsfeed.socialgraph.cancellations").tag("subject", subject).tag("outcome", outcome)
        .description("writes answered 503 without knowing whether they were stored, by how their cancellation ended")
        .register(registry);
  }

  /** Undoes {@code write} once PostgreSQL answers. */
  void cancel(W write) {
    if (pending.size() >= MAX_PENDING) {
      handOver(List.of(write), MAX_PENDING + " cancellations wait already");
      return;
    }
    pending.add(write);
    // in Redis before the first try, so its end removes it from there
    backlog.add(List.of(write), System.currentTimeMillis() + LEASE_MS).onComplete(added -> {
      if (added.succeeded() && added.result().isEmpty()) {
        inRedis.add(write);
      } else {
        redisFailures.warn("lease", "a " + subject + " cancellation is tried without a copy in Redis",
            added.failed() ? added.cause() : new IllegalStateException(CancellationBacklog.MAX + " wait there"));
      }
      attempt(write, System.currentTimeMillis() + FOR_MS);
    });
  }

  private void attempt(W write, long giveUpAt) {
    if (closed) {
      return;
    }
    undo.apply(write).onComplete(done -> {
      if (done.succeeded()) {
        pending.remove(write);
        ended(write, done.result());
        if (inRedis.remove(write)) {
          backlog.remove(write);
        }
      } else if (System.currentTimeMillis() + EVERY_MS >= giveUpAt) {
        pending.remove(write);
        handOver(List.of(write), "PostgreSQL did not answer for " + FOR_MS / 1000 + " s: " + done.cause());
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

  // the ones due in Redis (handed back, or their instance died), as far as this instance has room
  private void takeOver() {
    int room = Math.min(TAKE_AT_MOST, MAX_PENDING - pending.size());
    if (closed || room <= 0) {
      return;
    }
    backlog.take(room, LEASE_MS).onSuccess(writes -> {
      for (W write : writes) {
        // taken as the service stops: another instance takes it once its new lease ran out
        if (!closed && pending.add(write)) {
          inRedis.add(write);
          takenOver.increment();
          LOG.info("{} {} was answered 503 and its cancellation left to any instance: taken", subject, write);
          attempt(write, System.currentTimeMillis() + FOR_MS);
        }
      }
    }).onFailure(err -> redisFailures.warn("take",
        "could not take the " + subject + " cancellations waiting in Redis", err));
  }

  // due at once in Redis for every instance; given up only when Redis has it nowhere
  private Future<Void> handOver(List<W> writes, String why) {
    return backlog.add(writes, System.currentTimeMillis()).transform(added -> {
      for (W write : writes) {
        boolean leased = inRedis.remove(write);
        if (added.succeeded() && !added.result().contains(write)) {
          handedOver.increment();
          LOG.warn("{} {} was answered 503: its cancellation is handed to every instance through Redis ({})",
              subject, write, why);
        } else if (leased) {
          handedOver.increment();
          LOG.warn("{} {} was answered 503: its cancellation is left in Redis to any instance once its lease runs out"
              + " ({}; Redis did not take it back: {})", subject, write, why,
              added.failed() ? added.cause() : "full");
        } else {
          giveUp(write, why + "; Redis did not take it either: "
              + (added.failed() ? added.cause() : CancellationBacklog.MAX + " wait there already"));
        }
      }
      return Future.<Void>succeededFuture();
    });
  }

  private void giveUp(W write, String why) {
    abandoned.increment();
    LOG.error("{} {} was answered 503 and may be stored: its cancellation failed ({})", subject, write, why);
  }

  /** Waiting cancellations are handed to every instance when the service stops; ends once Redis answered. */
  Future<Void> close() {
    closed = true;
    vertx.cancelTimer(takeTimer);
    List<W> left = new ArrayList<>(pending);
    pending.clear();
    return left.isEmpty() ? Future.succeededFuture() : handOver(left, "the service stopped");
  }
}
