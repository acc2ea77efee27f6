package newsfeed.common.kafka;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.kafka.client.common.TopicPartition;
import io.vertx.kafka.client.consumer.KafkaConsumer;
import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import io.vertx.kafka.client.consumer.KafkaConsumerRecords;
import io.vertx.kafka.client.consumer.OffsetAndMetadata;
import io.vertx.kafka.client.producer.KafkaHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * At-least-once batch consumption with manual commits: poll a batch, hand it to the {@link BatchProcessor},
 * and commit each partition's offset only after the whole batch was processed. A batch that failed for a transient
 * reason (a store away) is retried with exponential backoff, forever, and never skipped; meanwhile the consumer keeps
 * polling with every partition paused so it stays in its group. A batch that failed permanently ({@link
 * BatchProcessor#isPermanent}) is taken apart and its records processed one by one: a record that still fails
 * permanently after {@code deadLetterAttempts} attempts is copied to the dead-letter topic and skipped, so one poison
 * record cannot stop its partition. Records handed out again after a rebalance are harmless because the processors
 * write idempotently (keys derived from the eventId).
 *
 * Everything runs on the verticle's event loop; the Vert.x client serialises calls on its own thread.
 */
public final class KafkaBatchConsumer {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaBatchConsumer.class);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(500);
  private static final long KEEP_ALIVE_MS = 5_000;
  private static final long MIN_BACKOFF_MS = 200;
  private static final long MAX_BACKOFF_MS = 10_000;

  /** Processes a whole batch; the returned future fails if any record must be retried. */
  public interface BatchProcessor {
    Future<Void> process(List<KafkaConsumerRecord<String, String>> records);

    /** Whether retrying could never help: by default a {@link PermanentFailure} anywhere in the causes. */
    default boolean isPermanent(Throwable err) {
      return PermanentFailure.in(err);
    }
  }

  private final Vertx vertx;
  private final KafkaConsumer<String, String> consumer;
  private final String topic;
  private final String group;
  private final BatchProcessor processor;
  private final ConsumerMetrics metrics;
  private final DeadLetters deadLetters;
  private final int deadLetterAttempts;
  private final long stallAfterMillis;
  private final Set<TopicPartition> assigned = new HashSet<>();
  /** Highest offset processed per partition by this instance: a record at or below it is a redelivery. */
  private final Map<TopicPartition, Long> processedUpTo = new HashMap<>();
  private final Promise<Void> stopped = Promise.promise();
  private volatile boolean running;
  private volatile boolean stopping;
  private volatile long lastPollMillis = System.currentTimeMillis();
  /** The last commit, assignment or start: with records waiting and nothing since, the consumer is stalled. */
  private volatile long lastProgressMillis = System.currentTimeMillis();
  private volatile String lastError;
  private boolean pausedForKeepAlive;
  private Future<Void> keepAliveInFlight = Future.succeededFuture();
  private long backoffTimer = -1;
  private Promise<Void> backoffWait;

  public KafkaBatchConsumer(Vertx vertx, KafkaConsumer<String, String> consumer, String topic, String group,
                            BatchProcessor processor, ConsumerMetrics metrics, DeadLetters deadLetters,
                            int deadLetterAttempts, Duration stallAfter) {
    this.vertx = vertx;
    this.consumer = consumer;
    this.topic = topic;
    this.group = group;
    this.processor = processor;
    this.metrics = metrics;
    this.deadLetters = deadLetters;
    this.deadLetterAttempts = deadLetterAttempts;
    this.stallAfterMillis = stallAfter.toMillis();
  }

  /** Subscribes and starts the poll loop; completes once subscribed (the broker may still be unreachable). */
  public Future<Void> start() {
    consumer.partitionsAssignedHandler(partitions -> {
      assigned.addAll(partitions);
      metrics.assigned(partitions);
      lastProgressMillis = System.currentTimeMillis();
      LOG.info("assigned {}", partitions);
    });
    consumer.partitionsRevokedHandler(partitions -> {
      assigned.removeAll(partitions);
      metrics.revoked(partitions);
      LOG.info("revoked {}", partitions);
    });
    consumer.exceptionHandler(err -> LOG.warn("kafka consumer: {}", err.toString()));
    return consumer.subscribe(topic).onSuccess(v -> {
      running = true;
      lastProgressMillis = System.currentTimeMillis();
      pollLoop();
    });
  }

  /**
   * Stops polling, lets the batch in flight finish and commit (bounded by the caller's grace period), then
   * closes the consumer so the group rebalances at once instead of after the session timeout.
   */
  public Future<Void> stop(Duration grace) {
    if (!running) {
      return consumer.close();
    }
    stopping = true;
    // a batch waiting for its next retry gives up now: its offsets stay uncommitted for the next owner
    if (backoffTimer >= 0 && vertx.cancelTimer(backoffTimer)) {
      backoffTimer = -1;
      backoffWait.tryFail("stopping");
    }
    return stopped.future()
        .timeout(grace.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
        .recover(err -> {
          LOG.warn("batch still in flight at shutdown; its offsets stay uncommitted and will be redelivered");
          return Future.succeededFuture();
        })
        .compose(v -> consumer.close())
        .onComplete(ar -> running = false);
  }

  /**
   * Why the consumer is not healthy, or null when it is: the poll loop must have made progress recently, and with
   * records waiting in its partitions it must have committed within {@code stallAfter}.
   */
  public String unhealthyReason() {
    if (!running) {
      return "consumer not running";
    }
    long now = System.currentTimeMillis();
    String cause = lastError == null ? "" : ": " + lastError;
    long sincePoll = now - lastPollMillis;
    if (sincePoll > 60_000) {
      return "consumer has not polled for " + sincePoll / 1000 + " s" + cause;
    }
    long waiting = metrics.ownedLag();
    long sinceProgress = now - lastProgressMillis;
    if (waiting > 0 && sinceProgress > stallAfterMillis) {
      return waiting + " records waiting and no offset committed for " + sinceProgress / 1000 + " s" + cause;
    }
    return null;
  }

  public Set<TopicPartition> assignment() {
    return Set.copyOf(assigned);
  }

  private void pollLoop() {
    if (stopping) {
      stopped.tryComplete();
      return;
    }
    // a keep-alive still pausing partitions must finish before we resume them, or the loop would poll paused
    keepAliveInFlight.transform(ignored -> resumeIfPaused())
        .compose(v -> consumer.poll(POLL_TIMEOUT))
        .onComplete(ar -> {
          lastPollMillis = System.currentTimeMillis();
          if (ar.failed()) {
            lastError = ar.cause().toString();
            LOG.warn("poll failed: {}", lastError);
            vertx.setTimer(MIN_BACKOFF_MS * 5, t -> pollLoop());
            return;
          }
          KafkaConsumerRecords<String, String> records = ar.result();
          if (records.isEmpty()) {
            pollLoop();
            return;
          }
          List<KafkaConsumerRecord<String, String>> batch = new ArrayList<>(records.size());
          for (int i = 0; i < records.size(); i++) {
            batch.add(records.recordAt(i));
          }
          countRedeliveries(batch);
          long timer = vertx.setPeriodic(KEEP_ALIVE_MS, id -> keepAlive());
          List<KafkaConsumerRecord<String, String>> mine = forThisGroup(batch);
          (mine.isEmpty() ? Future.<Void>succeededFuture() : processWithRetry(mine, 1, 0))
              .compose(v -> commit(batch))
              .onComplete(done -> {
                vertx.cancelTimer(timer);
                if (done.succeeded()) {
                  metrics.consumed(mine.size());
                  lastError = null;
                }
                pollLoop();
              });
        });
  }

  /**
   * Processes a batch until it succeeds: a transient failure is retried forever; a permanent one takes a batch of
   * several records apart, and gets a single record dead-lettered after {@code deadLetterAttempts} permanent failures.
   */
  private Future<Void> processWithRetry(List<KafkaConsumerRecord<String, String>> batch, int attempt,
                                        int permanentFailures) {
    Future<Void> attemptFuture;
    try {
      attemptFuture = processor.process(batch);
    } catch (RuntimeException e) {
      attemptFuture = Future.failedFuture(e);
    }
    return attemptFuture.recover(err -> {
      metrics.failed(batch.size());
      lastError = err.toString();
      if (stopping) {
        return Future.failedFuture(err);
      }
      boolean permanent = processor.isPermanent(err);
      if (permanent && batch.size() > 1) {
        LOG.warn("batch of {} records failed permanently, processing them one by one: {}", batch.size(),
            err.toString());
        return oneByOne(batch, 0);
      }
      int permanentNow = permanent ? permanentFailures + 1 : permanentFailures;
      if (permanent && permanentNow >= deadLetterAttempts) {
        return deadLetter(batch.get(0), err, attempt, 1);
      }
      long backoff = backoff(attempt);
      LOG.warn("batch of {} records failed (attempt {}, {}), retrying in {} ms: {}", batch.size(), attempt,
          permanent ? "permanent" : "transient", backoff, err.toString());
      return later(backoff, () -> processWithRetry(batch, attempt + 1, permanentNow));
    });
  }

  private Future<Void> oneByOne(List<KafkaConsumerRecord<String, String>> batch, int from) {
    if (from == batch.size()) {
      return Future.succeededFuture();
    }
    return processWithRetry(List.of(batch.get(from)), 1, 0).compose(v -> oneByOne(batch, from + 1));
  }

  /** Copies the record to the dead-letter topic (retried until the broker has it), after which it counts as done. */
  private Future<Void> deadLetter(KafkaConsumerRecord<String, String> record, Throwable err, int attempts,
                                  int sendAttempt) {
    if (sendAttempt == 1) {
      LOG.error("record {}-{}@{} failed permanently {} times, moving it to {}: {}", record.topic(), record.partition(),
          record.offset(), attempts, deadLetters.topic(), err.toString());
    }
    return deadLetters.send(record, err, attempts)
        .onSuccess(v -> metrics.deadLettered(1))
        .recover(sendErr -> {
          lastError = "dead-letter write failed: " + sendErr;
          if (stopping) {
            return Future.failedFuture(sendErr);
          }
          long backoff = backoff(sendAttempt);
          LOG.warn("writing {}-{}@{} to {} failed, retrying in {} ms: {}", record.topic(), record.partition(),
              record.offset(), deadLetters.topic(), backoff, sendErr.toString());
          return later(backoff, () -> deadLetter(record, err, attempts, sendAttempt + 1));
        });
  }

  private static long backoff(int attempt) {
    return Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS << Math.min(attempt - 1, 10));
  }

  /** Runs the step after a delay that {@link #stop} can cut short (the step then fails and nothing is committed). */
  private Future<Void> later(long delayMs, Supplier<Future<Void>> step) {
    Promise<Void> done = Promise.promise();
    backoffTimer = vertx.setTimer(delayMs, t -> {
      backoffTimer = -1;
      step.get().onComplete(done);
    });
    backoffWait = done;
    return done.future();
  }

  /** Commits, per partition, the offset after the last record of the batch (all of them were processed). */
  private Future<Void> commit(List<KafkaConsumerRecord<String, String>> batch) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (KafkaConsumerRecord<String, String> r : batch) {
      TopicPartition tp = new TopicPartition(r.topic(), r.partition());
      OffsetAndMetadata next = offsets.get(tp);
      if (next == null || next.getOffset() <= r.offset()) {
        offsets.put(tp, new OffsetAndMetadata(r.offset() + 1, ""));
      }
      processedUpTo.merge(tp, r.offset(), Math::max);
    }
    return metrics.timeCommit(() -> consumer.commit(offsets))
        .<Void>mapEmpty()
        .onSuccess(v -> lastProgressMillis = System.currentTimeMillis())
        .recover(err -> {
          // typically a rebalance took the partitions away: the new owner re-processes idempotently
          LOG.warn("offset commit failed, records will be redelivered: {}", err.toString());
          return Future.succeededFuture();
        });
  }

  /**
   * While a batch is processed (or retried) the loop does not poll; a long fan-out or a store outage would
   * otherwise exceed max.poll.interval.ms and get this member thrown out of the group. So poll with everything
   * paused; partitions newly assigned by a rebalance are not paused yet and may return records: rewind them.
   */
  private void keepAlive() {
    if (!keepAliveInFlight.isComplete()) {
      return;
    }
    pausedForKeepAlive = true;
    keepAliveInFlight = consumer.assignment()
        .compose(consumer::pause)
        .compose(v -> consumer.poll(Duration.ZERO))
        .compose(records -> {
          lastPollMillis = System.currentTimeMillis();
          Map<TopicPartition, Long> rewind = new HashMap<>();
          for (int i = 0; i < records.size(); i++) {
            KafkaConsumerRecord<String, String> r = records.recordAt(i);
            rewind.merge(new TopicPartition(r.topic(), r.partition()), r.offset(), Math::min);
          }
          List<Future<Void>> seeks = new ArrayList<>();
          rewind.forEach((tp, offset) -> seeks.add(consumer.seek(tp, offset).compose(v -> consumer.pause(tp))));
          return Future.all(seeks).<Void>mapEmpty();
        })
        .onFailure(err -> LOG.warn("keep-alive poll failed: {}", err.toString()))
        .otherwiseEmpty();
  }

  private Future<Void> resumeIfPaused() {
    if (!pausedForKeepAlive) {
      return Future.succeededFuture();
    }
    pausedForKeepAlive = false;
    return consumer.paused().compose(consumer::resume);
  }

  /** The batch without the records a dead-letter replay meant for another group (their offsets are committed). */
  private List<KafkaConsumerRecord<String, String>> forThisGroup(List<KafkaConsumerRecord<String, String>> batch) {
    List<KafkaConsumerRecord<String, String>> mine = new ArrayList<>(batch.size());
    for (KafkaConsumerRecord<String, String> r : batch) {
      String replayedFor = null;
      for (KafkaHeader h : r.headers()) {
        if (DeadLetterCommand.REPLAYED_FOR.equals(h.key())) {
          replayedFor = h.value().toString();
        }
      }
      if (replayedFor == null || replayedFor.equals(group)) {
        mine.add(r);
      }
    }
    return mine;
  }

  private void countRedeliveries(List<KafkaConsumerRecord<String, String>> batch) {
    int redelivered = 0;
    for (KafkaConsumerRecord<String, String> r : batch) {
      Long done = processedUpTo.get(new TopicPartition(r.topic(), r.partition()));
      if (done != null && r.offset() <= done) {
        redelivered++;
      }
    }
    if (redelivered > 0) {
      metrics.redelivered(redelivered);
    }
  }
}
