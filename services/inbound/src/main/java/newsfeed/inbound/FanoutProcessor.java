package newsfeed.inbound;

import newsfeed.common.events.OutboundEvent;
import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.events.OutboundRetractedEvent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.vertx.core.Future;
import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import newsfeed.common.kafka.EventDecoder;
import newsfeed.common.kafka.KafkaBatchConsumer;
import newsfeed.common.errors.Causes;
import newsfeed.common.kafka.PermanentFailure;
import com.datastax.oss.driver.api.core.servererrors.QueryValidationException;
import newsfeed.common.metrics.OperationTimer;
import newsfeed.common.tracing.RecordTracing;
import newsfeed.common.tracing.Tracing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Fans each "outbound posted" event out to the poster's friends: one inbound row per friend, written in small
 * unlogged batches (up to {@code batchRows} friends and {@link #BATCH_BYTES} per request). Events of a batch run
 * concurrently; all writes share one limiter so a 100k-friend post cannot flood Cassandra. The batch succeeds
 * only when every row of every event is written, which is what lets the consumer commit. After each request, outside
 * the write limiter, the post is added to the friends' cached first pages; a large fan-out drops them once all its
 * rows are written (never failing: see {@link FeedCache#insert} and {@link FeedCache#drop}, which bound their own
 * Redis calls). A retraction
 * removes the post from the friends' feeds the same way, with tombstones that also hide a fan-out applied later,
 * and drops their cached pages.
 */
public final class FanoutProcessor implements KafkaBatchConsumer.BatchProcessor {
  /**
   * Payload budget of one write request: below Cassandra's default batch_size_warn_threshold (5 KiB), so
   * ordinary posts go 10 friends at a time and only a long story falls back to smaller batches (or single rows).
   */
  static final int BATCH_BYTES = 4 * 1024;
  /** Per-row bytes besides subject and story: key columns, timeuuid, cell overhead (an estimate). */
  static final int ROW_OVERHEAD_BYTES = 64;

  private static final AttributeKey<String> DB_SYSTEM = AttributeKey.stringKey("db.system");
  private static final AttributeKey<Long> ROWS = AttributeKey.longKey("newsfeed.fanout.rows");
  private static final AttributeKey<Long> REQUESTS = AttributeKey.longKey("newsfeed.fanout.requests");

  private final FriendsClient friends;
  private final InboundRepository repository;
  private final FeedCache cache;
  private final AsyncLimiter events;
  private final AsyncLimiter writes;
  private final Timer fanoutDelay;
  private final OperationTimer fanoutTimer;
  private final Counter retracted;
  private final int batchRows;

  /** {@code batchRows}: friends per write request at most (1 = a request per row). */
  public FanoutProcessor(FriendsClient friends, InboundRepository repository, FeedCache cache,
                         MeterRegistry registry, int concurrentEvents, int concurrentWrites, int batchRows) {
    this.friends = friends;
    this.repository = repository;
    this.cache = cache;
    this.events = new AsyncLimiter(concurrentEvents);
    this.writes = new AsyncLimiter(concurrentWrites);
    this.fanoutDelay = Timer.builder("newsfeed.fanout.delay").register(registry);
    this.fanoutTimer = new OperationTimer(registry, "inbound", "store");
    this.retracted = Counter.builder("newsfeed.events").tag("event", "retracted").register(registry);
    this.batchRows = batchRows;
  }

  @Override
  public Future<Void> process(List<KafkaConsumerRecord<String, String>> records) {
    Map<OutboundEvent, KafkaConsumerRecord<String, String>> decoded = EventDecoder.decodeWithRecords(records);
    List<Future<Void>> all = new ArrayList<>(decoded.size());
    decoded.forEach((e, record) -> all.add(events.submit(() -> e instanceof OutboundPostedEvent posted
        ? RecordTracing.consume(record, "fan-out", () -> fanOut(posted))
        : RecordTracing.consume(record, "retract", () -> retract((OutboundRetractedEvent) e)))));
    return Future.all(all).mapEmpty();
  }

  /** Permanent: what {@link PermanentFailure} says, and a write Cassandra refuses as invalid (never a timeout). */
  @Override
  public boolean isPermanent(Throwable err) {
    return PermanentFailure.in(err) || Causes.include(err, QueryValidationException.class);
  }

  /** Writes the event into every friend's feed; fails (for a retry of the whole batch) if any write fails. */
  Future<Void> fanOut(OutboundPostedEvent event) {
    return fanoutTimer.time(() -> friends.friendIds(event.participantId()).compose(ids -> writeAll(ids, event)))
        .andThen(ar -> {
          if (ar.succeeded() && ar.result() > 0) {
            fanoutDelay.record(Math.max(0, System.currentTimeMillis() - event.postedAtMillis()),
                TimeUnit.MILLISECONDS);
          }
        })
        .mapEmpty();
  }

  /** Removes the retracted post from every friend's feed; fails (for a retry of the whole batch) if a delete fails. */
  Future<Void> retract(OutboundRetractedEvent event) {
    // marked first: a fan-out of the post added to a page after the pages are dropped would bring it back
    return cache.retracted(event.eventId()).compose(marked -> friends.friendIds(event.participantId()))
        .compose(ids -> Tracing.summarized("cassandra delete inbound",
            Attributes.of(DB_SYSTEM, "cassandra", ROWS, (long) ids.size()), () -> {
              List<Future<Void>> deletes = new ArrayList<>(ids.size() / batchRows + 1);
              for (int from = 0; from < ids.size(); from += batchRows) {
                List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + batchRows));
                deletes
                    .add(writes.submit(() -> repository.deleteAll(chunk, event).compose(v -> cache.invalidate(chunk))));
              }
              return Future.all(deletes);
            }))
        .onSuccess(v -> retracted.increment()).mapEmpty();
  }

  Future<Integer> writeAll(List<Long> friendIds, OutboundPostedEvent event) {
    if (friendIds.isEmpty()) {
      return Future.succeededFuture(0);
    }
    int rows = rowsPerRequest(event);
    // one span for all the rows of a post, however many friends: their requests themselves are not traced
    return Tracing.summarized("cassandra insert inbound", Attributes.of(DB_SYSTEM, "cassandra", ROWS,
        (long) friendIds.size(), REQUESTS, (long) (friendIds.size() + rows - 1) / rows),
        () -> writeChunks(friendIds, event, rows));
  }

  private Future<Integer> writeChunks(List<Long> friendIds, OutboundPostedEvent event, int rows) {
    // after the first failure the queued writes of this event are dropped: the batch is retried anyway
    boolean[] failed = {false};
    boolean writeThrough = FeedCache.writesThrough(friendIds.size());
    List<Future<Void>> inserts = new ArrayList<>(friendIds.size() / rows + 1);
    for (int from = 0; from < friendIds.size(); from += rows) {
      List<Long> chunk = friendIds.subList(from, Math.min(friendIds.size(), from + rows));
      // the cache update runs after the write has given its Cassandra slot back (it never fails)
      inserts.add(writes.submit(() -> failed[0]
          ? Future.failedFuture("fan-out of " + event.eventId() + " abandoned after an earlier failure")
          : repository.insertAll(chunk, event).onFailure(err -> failed[0] = true))
          .compose(v -> writeThrough ? cache.insert(chunk, event) : Future.succeededFuture()));
    }
    Future<Void> written = Future.all(inserts).mapEmpty();
    return (writeThrough ? written : written.compose(v -> cache.drop(friendIds))).map(friendIds.size());
  }

  /** How many friends one request carries: {@code batchRows}, fewer when the post is long, at least one. */
  int rowsPerRequest(OutboundPostedEvent event) {
    long given = event.givenOccurred() == null ? 0 : event.givenOccurred().length();   // ASCII by validation
    long rowBytes = ROW_OVERHEAD_BYTES + given + utf8Length(event.subject()) + utf8Length(event.story());
    return (int) Math.max(1, Math.min(batchRows, BATCH_BYTES / rowBytes));
  }

  private static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      n += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;   // a surrogate pair: 2 + 2 = 4
    }
    return n;
  }
}
