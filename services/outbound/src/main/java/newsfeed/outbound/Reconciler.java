package newsfeed.outbound;

import newsfeed.common.events.OutboundRetractedEvent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes whole the posts a process left between their row and their event: it died after the write, before Kafka
 * acknowledged the event, so the post is in its poster's outbound and nowhere else (an orphan). Every
 * {@link #every} it reads the {@link PendingPosts} entries of the minutes that ended at least {@code after} ago
 * (longer than any request lives, so nothing it reads is still in flight): a post whose row is there, written at
 * the entry's timestamp, gets its event published; a post whose row is gone (cancelled, or never written) gets
 * its retraction published once more, for a process that answered 503 but died before its own retraction went out. Every outbound instance reconciles every minute; two publishing the same event is harmless,
 * the consumers write by eventId. Starts {@link #LOOKBACK_MINUTES} back, for a process that died before this one
 * started.
 */
final class Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);
  static final int LOOKBACK_MINUTES = 15;
  /** Minutes read per round at most, so a long outage is caught up step by step. */
  static final int MINUTES_PER_ROUND = 5;

  private final Vertx vertx;
  private final PendingPosts pending;
  private final OutboundRepository posts;
  private final EventPublisher publisher;
  private final Duration after;
  private final Duration every;
  private final Counter published;
  private final Counter gone;
  private long nextMinute;
  private boolean running;
  private long timer = -1;

  Reconciler(Vertx vertx, PendingPosts pending, OutboundRepository posts, EventPublisher publisher, Duration after,
             MeterRegistry registry) {
    this.vertx = vertx;
    this.pending = pending;
    this.posts = posts;
    this.publisher = publisher;
    this.after = after;
    this.every = Duration.ofMillis(Math.max(200, Math.min(15_000, after.toMillis() / 2)));
    this.published = outcome(registry, "published");
    this.gone = outcome(registry, "gone");
    this.nextMinute = System.currentTimeMillis() / 60_000 - LOOKBACK_MINUTES;
  }

  private static Counter outcome(MeterRegistry registry, String outcome) {
    return Counter.builder("newsfeed.outbound.reconciled").tag("outcome", outcome)
        .description("pending posts found by the reconciler: published (the process died before the event), "
            + "gone (no row: cancelled or never written)")
        .register(registry);
  }

  void start() {
    timer = vertx.setPeriodic(every.toMillis(), id -> round());
  }

  void stop() {
    vertx.cancelTimer(timer);
  }

  /** One round: the due minutes in order, as far as they all succeed; a failed one is read again next round. */
  Future<Void> round() {
    if (running) {
      return Future.succeededFuture();
    }
    running = true;
    long lastDue = (System.currentTimeMillis() - after.toMillis()) / 60_000 - 1;
    return minutes(Math.min(lastDue, nextMinute + MINUTES_PER_ROUND - 1))
        .onFailure(err -> LOG.warn("reconciling minute {} failed, again in {}: {}", nextMinute, every, err.toString()))
        .onComplete(ar -> running = false);
  }

  private Future<Void> minutes(long last) {
    if (nextMinute > last) {
      return Future.succeededFuture();
    }
    return minute(nextMinute).compose(v -> {
      nextMinute++;
      return minutes(last);
    });
  }

  private Future<Void> minute(long minute) {
    List<Future<Void>> shards = new ArrayList<>(PendingPosts.SHARDS);
    for (int shard = 0; shard < PendingPosts.SHARDS; shard++) {
      shards.add(pending.list(minute, shard).compose(this::settleAll));
    }
    return Future.all(shards).mapEmpty();
  }

  private Future<Void> settleAll(List<PendingPosts.Entry> entries) {
    Future<Void> done = Future.succeededFuture();
    for (PendingPosts.Entry e : entries) {
      done = done.compose(v -> settle(e));
    }
    return done;
  }

  /**
   * Publishes the entry's post if its row is there as the entry wrote it, or else its retraction, then removes the
   * entry. A post that is not there was cancelled or never written; its event may still have reached the broker
   * before the process that answered 503 could publish the retraction (it died, or gave up): retracting it again
   * is harmless. A row written again by a retry has an entry of its own, and its event is newer than a retraction.
   */
  private Future<Void> settle(PendingPosts.Entry e) {
    return posts.get(e.participantId(), e.occurred()).compose(stored -> {
      if (stored == null) {
        return publisher.publish(new OutboundRetractedEvent(e.occurred(), e.participantId(), e.writtenMicros() + 1))
            .compose(v -> pending.remove(e)).onSuccess(v -> gone.increment());
      }
      if (stored.writtenMicros() != e.writtenMicros()) {
        return pending.remove(e).onSuccess(v -> gone.increment());
      }
      return publisher.publish(stored.item().event(e.writtenMicros())).compose(v -> pending.remove(e))
          .onSuccess(v -> {
            published.increment();
            LOG.warn("post {}/{} had no event (its process stopped before Kafka acknowledged it): published now",
                e.participantId(), e.occurred());
          });
    });
  }
}
