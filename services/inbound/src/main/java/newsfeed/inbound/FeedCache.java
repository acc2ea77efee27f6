package newsfeed.inbound;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import io.vertx.core.Vertx;
import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.http.FeedCursor;
import newsfeed.common.http.FeedPage;
import newsfeed.common.redis.RedisStore;
import newsfeed.common.redis.StampedCache;
import newsfeed.common.redis.StampedCache.Lookup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The first page of each inbound feed at the default page size, in Redis: most reads of a news feed are of its
 * first page, and a hit costs neither Cassandra nor the JSON encoding of its rows. It is a write-through cache:
 * fan-out, after writing a friend's row, adds the post to that friend's cached page, so a feed that is written to
 * stays cached. Off ({@link #off()}) when INBOUND_CACHE_TTL_SECONDS is 0.
 *
 * <p>A page is a sorted set: one member per row, {@link #orderKey} (which sorts as Cassandra sorts the rows'
 * timeuuids), the row's cursor and its JSON, separated by spaces, all scored 0, so Redis orders them by their bytes;
 * and the stamp member "~", which sorts above every row and whose score is the feed's generation when the page
 * was read from Cassandra, plus the writes added to it since. It holds the newest {@code limit + 1} rows of the
 * feed, or all of them when there are fewer: the one past the page says that more follow.
 *
 * <p>Each feed has a generation key, a number (a {@link StampedCache#counted} cache, whose invalidations and their
 * retries this shares): a page is current when its stamp equals it. A reader fills a page stamped with the generation
 * it saw before reading Cassandra, putting a fresh one in place when there was none, so that a generation deleted by a
 * write, expired or evicted at Redis' memory limit never makes an old page current. Fan-out adds a post to a friend's
 * page in one MULTI/EXEC that counts the write in the generation, adds the row, raises the stamp by one only if the
 * page has one (ZADD XX INCR) and drops the oldest row past {@code limit + 1}: a current page stays current with the
 * post in it; a fill read before the write lands with a stamp one short. A feed that has no page when the transaction
 * is prepared (EXISTS, in the round trip that reads the retraction marker) loses its generation, in the same
 * transaction, and gets no row: most followers' feeds are not cached, and so keep no key at all. No WATCH on the pages:
 * writes to one feed commute (a row is added once, however often a post is fanned out), so concurrent writers and
 * readers never make a write run again. A page keeps the expiry of its fill (EXPIRE NX): it lives at most the TTL after
 * it was read from Cassandra; rows added to a page that expired after the check get no stamp, are never served and
 * expire within {@link #UNCACHED_ROWS_TTL_SECONDS}. A retraction marks its post for a generation's lifetime, then drops
 * the friends' pages and generations; fan-out WATCHes the post's marker only, so a post fanned out again or late (a
 * redelivery, the two in one batch) is never added back.
 */
public final class FeedCache {
  static final String PREFIX = "ib:v3:page";
  static final String RETRACTED_PREFIX = "ib:v3:retracted:";
  /** Characters of {@link #orderKey}: 19 digits of the timestamp, 16 hex digits of the rest. */
  static final int ORDER_KEY_LENGTH = 35;
  static final String STAMP = "~";
  /** Runs of an update transaction before its pages are dropped instead: a retraction of the post came between. */
  static final int UPDATE_ATTEMPTS = 3;
  /**
   * Life of the rows a post leaves in a feed whose page expired between the fan-out's check and its transaction:
   * never served, gone at once.
   */
  static final long UNCACHED_ROWS_TTL_SECONDS = 1;

  private final Vertx vertx;
  private final StampedCache generations;
  private final RedisStore redis;
  private final AsyncLimiter updates;
  private final AsyncLimiter drops = new AsyncLimiter(DROP_CONCURRENCY);
  private final Counter updatesApplied;
  private final Counter updatesConflicted;

  FeedCache(Vertx vertx, StampedCache generations, RedisStore redis, int concurrentUpdates, MeterRegistry registry) {
    this.vertx = vertx;
    this.generations = generations;
    this.redis = redis;
    this.updates = new AsyncLimiter(Math.max(1, concurrentUpdates));
    this.updatesApplied = registry == null ? null : updates(registry, "applied");
    this.updatesConflicted = registry == null ? null : updates(registry, "conflict");
  }

  /**
   * The cache of these pages: numbers that count writes as generations, under {@link #PREFIX}. At most
   * {@code concurrentUpdates} fan-out transactions run at once (each holds a pooled connection while it runs): the
   * rest of the pool is left to the readers, and a large fan-out queues here instead of in the pool's bounded wait
   * queue.
   */
  static FeedCache create(Vertx vertx, RedisStore redis, Duration ttl, int concurrentUpdates, MeterRegistry registry) {
    return new FeedCache(vertx, StampedCache.counted(vertx, redis, "inbound", PREFIX, ttl, registry), redis,
        concurrentUpdates, registry);
  }

  // update transactions: applied, or run again (or given up) after a retraction of the post came in between
  private static Counter updates(MeterRegistry registry, String result) {
    return Counter.builder("newsfeed.cache.updates").tag("cache", "inbound").tag("result", result)
        .register(registry);
  }

  static FeedCache off() {
    return new FeedCache(null, null, null, 1, null);
  }

  /** Only first pages of the default size are cached: other limits and later pages are read from Cassandra. */
  boolean covers(FeedPage.Request page) {
    return generations != null && page.before() == null && page.limit() == FeedPage.DEFAULT_LIMIT;
  }

  /** Never fails; a bypass (stamp null) when the cache is off or Redis is away. */
  Future<Lookup<FeedPage.Body>> get(long participantId) {
    if (generations == null) {
      return Future.succeededFuture(Lookup.bypass());
    }
    if (generations.bypasses(participantId)) {
      generations.count(false);
      return Future.succeededFuture(Lookup.bypass());
    }
    // the stamp's score comes with the rows in one command: a fill landing between two reads cannot pair them
    StampedCache.GenerationRead generation = generations.readGeneration(participantId);
    return redis.batch("get", List.of(generation.request(),
        Request.cmd(Command.ZRANGE).arg(key(participantId)).arg(0).arg(-1).arg("REV").arg("WITHSCORES")))
        .map(answers -> {
          Scored page = scored(answers.get(1));
          Lookup<FeedPage.Body> lookup = lookup(generation.current(answers.get(0)), page.topScore(), page.members(),
              FeedPage.DEFAULT_LIMIT);
          generations.count(lookup.hit());
          return lookup;
        }).recover(err -> {
          generations.failed("get", err);
          generations.count(false);
          return Future.succeededFuture(Lookup.bypass());
        });
  }

  /**
   * Hit or miss from the generation and the page's members, highest first, with the highest one's score (pure:
   * unit-tested): a hit when that member is the stamp, its score equals the generation and rows follow it; a miss to
   * fill stamped with the generation; a bypass when the generation is missing or unreadable.
   */
  static Lookup<FeedPage.Body> lookup(String generation, String topScore, List<String> members, int limit) {
    long current;
    try {
      current = Long.parseLong(generation);
    } catch (NumberFormatException e) {
      return Lookup.bypass();
    }
    if (topScore != null && members.size() >= 2 && members.get(0).equals(STAMP) && score(topScore) == current) {
      FeedPage.Body page = decode(members.subList(1, members.size()), limit);
      if (page != null) {
        return new Lookup<>(page, null);
      }
    }
    return new Lookup<>(null, Long.toString(current));
  }

  // a sorted set's score as RESP2 ("5") or RESP3 ("5.0") gives it; never equal to a count when unreadable
  private static long score(String score) {
    try {
      return (long) Double.parseDouble(score);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Caches the first page read from Cassandra after the miss that gave {@code stamp}: up to {@code limit + 1} rows,
   * replacing whatever is there (a fill from before a write is stamped with an older generation: never served).
   */
  Future<Void> put(long participantId, String stamp, List<InboundItem> rows, int limit) {
    if (generations == null || stamp == null || rows.isEmpty() || generations.bypasses(participantId)) {
      return Future.succeededFuture();
    }
    String key = key(participantId);
    Request add = Request.cmd(Command.ZADD).arg(key).arg(stamp).arg(STAMP);
    for (InboundItem row : rows.subList(0, Math.min(rows.size(), limit + 1))) {
      add.arg(0).arg(member(row));
    }
    // one transaction, sent as one pooled batch: never a page without its expiry
    return redis.batch("set", List.of(Request.cmd(Command.MULTI), Request.cmd(Command.DEL).arg(key), add,
        Request.cmd(Command.EXPIRE).arg(key).arg(generations.ttlSeconds()), Request.cmd(Command.EXEC)))
        .<Void>mapEmpty().recover(err -> {
          generations.failed("set", err);
          return Future.succeededFuture();
        });
  }

  /**
   * Fan-outs to more friends than this drop the friends' pages once all rows are written, instead of adding the post
   * to each: almost none of so many feeds is cached, and the write-through costs a check and a transaction with
   * commands for each friend per write request (measured: a quarter or more of a 100,000-friend fan-out's time). A
   * dropped page is filled again by its next reader.
   */
  static final int WRITE_THROUGH_MAX_FRIENDS = 1_000;
  /** Friends whose pages one round trip drops: one DEL of their pages and generations (2,000 keys). */
  static final int DROP_SLICE = 1_000;
  /**
   * Drop round trips in flight at once, over all fan-outs: Redis runs commands one at a time, so more in flight
   * only queue there, and readers' commands behind them. With 32 in flight (the update limiter's share of the pool)
   * 96,000 commands queued (slices of 3,001 then), and a 1,000,000-friend fan-out under load saw slices pass
   * REDIS_TIMEOUT_MS.
   */
  static final int DROP_CONCURRENCY = 4;
  /**
   * How long after its first failure a drop keeps sending its failed slices again, each once Redis' back-off is
   * over, before the slices still failing go to the pending invalidations: a timeout under load costs a second, not
   * the pages (the pending set is bounded for outages, and a million friends overflow it); an outage costs a large
   * fan-out this long, not more.
   */
  static final long DROP_WAIT_MS = 5_000;

  /** Whether a fan-out to this many friends adds the post to their pages ({@link #insert}) or drops them. */
  static boolean writesThrough(int fanoutSize) {
    return fanoutSize <= WRITE_THROUGH_MAX_FRIENDS;
  }

  /**
   * Drops these friends' pages after their rows are in Cassandra, {@link #DROP_SLICE} a round trip: a fill read
   * before has an older stamp and is never served; one read after holds the rows. A slice that fails is sent again
   * once Redis' back-off is over, for up to {@link #DROP_WAIT_MS} after the drop's first failure; while it waits, a
   * page cached before the post may still be served. Never fails.
   */
  Future<Void> drop(List<Long> friendIds) {
    if (generations == null || friendIds.isEmpty()) {
      return Future.succeededFuture();
    }
    long[] giveUpAt = {0};   // nanoTime, set by the first failure
    List<Future<Void>> slices = new ArrayList<>(friendIds.size() / DROP_SLICE + 1);
    for (int from = 0; from < friendIds.size(); from += DROP_SLICE) {
      List<Long> slice = friendIds.subList(from, Math.min(friendIds.size(), from + DROP_SLICE));
      slices.add(drops.submit(() -> dropSlice(slice, giveUpAt)));
    }
    return Future.all(slices).mapEmpty();
  }

  private Future<Void> dropSlice(List<Long> slice, long[] giveUpAt) {
    return generations.tryInvalidate(slice).recover(err -> {
      long now = System.nanoTime();
      if (giveUpAt[0] == 0) {
        giveUpAt[0] = now + TimeUnit.MILLISECONDS.toNanos(DROP_WAIT_MS);
      }
      if (now - giveUpAt[0] >= 0) {
        return generations.invalidate(slice);   // sent, or remembered for the background retries
      }
      Promise<Void> retried = Promise.promise();
      vertx.setTimer(Math.max(1, redis.backoffRemainingMillis()), t -> dropSlice(slice, giveUpAt).onComplete(retried));
      return retried.future();
    });
  }

  /** Adds the post to these friends' cached pages; call after their rows are in Cassandra. Never fails. */
  Future<Void> insert(List<Long> friendIds, OutboundPostedEvent event) {
    if (generations == null || friendIds.isEmpty()) {
      return Future.succeededFuture();
    }
    // a friend whose invalidation has not reached Redis may have a page from before a write: it is only dropped
    List<Long> updated = new ArrayList<>(friendIds.size());
    List<Long> dropped = new ArrayList<>();
    for (long id : friendIds) {
      (generations.bypasses(id) ? dropped : updated).add(id);
    }
    Future<Void> update = updated.isEmpty() ? Future.succeededFuture()
        : updates.submit(() -> redis.transaction("update", conn -> addRow(conn, updated, event, UPDATE_ATTEMPTS)))
            .recover(err -> {
              generations.failed("update", err);
              return Future.succeededFuture(false);
            })
            .compose(applied -> applied ? Future.succeededFuture() : generations.invalidate(updated));
    return dropped.isEmpty() ? update : update.compose(v -> generations.invalidate(dropped));
  }

  // true when a transaction ran; false when the post is retracted or its marker changed every time (nothing was
  // written then)
  private Future<Boolean> addRow(RedisConnection conn, List<Long> ids, OutboundPostedEvent event, int attempts) {
    String marker = retractedKey(event.eventId());
    List<Request> check = new ArrayList<>(ids.size() + 2);
    check.add(Request.cmd(Command.WATCH).arg(marker));
    check.add(Request.cmd(Command.GET).arg(marker));
    for (long id : ids) {
      check.add(Request.cmd(Command.EXISTS).arg(key(id)));
    }
    return conn.batch(check)
        .compose(answers -> {
          if (answers.get(1) != null) {
            // retracted: nothing is added, and the caller drops the pages (an invalidation, retried if it fails)
            return conn.send(Request.cmd(Command.UNWATCH)).map(false);
          }
          List<Request> transaction = new ArrayList<>(8 * ids.size() + 3);
          transaction.add(Request.cmd(Command.MULTI));
          List<Long> uncached = new ArrayList<>();
          for (int i = 0; i < ids.size(); i++) {
            long id = ids.get(i);
            String key = key(id);
            if (answers.get(i + 2).toLong() == 0) {
              // no page: deleting the generation alone makes any fill read before this write stale. Adding the row
              // anyway would leave a page of rows per friend until Redis reclaims expired keys, which lags behind a
              // fast fan-out (Redis peaked at 493 MiB during 1,000 posts to 999 friends each)
              uncached.add(id);
              continue;
            }
            transaction.addAll(generations.countedWrite(id));
            transaction.add(Request.cmd(Command.ZADD).arg(key).arg(0).arg(member(new InboundItem(id, event.eventId(),
                event.participantId(), event.givenOccurred(), event.subject(), event.story()))));
            // the stamp counts the write only on a page that has one: a page that was not cached stays unstamped
            transaction.add(Request.cmd(Command.ZADD).arg(key).arg("XX").arg("INCR").arg(1).arg(STAMP));
            // the stamp and limit + 1 rows stay: the oldest beyond them (maybe the new row itself) leaves
            transaction.add(Request.cmd(Command.ZREMRANGEBYRANK).arg(key).arg(0).arg(-(FeedPage.DEFAULT_LIMIT + 3)));
            // a page that expired since the check leaves rows without a stamp, never served: they expire at once
            // (a page keeps the expiry of its fill)
            transaction.add(Request.cmd(Command.EXPIRE).arg(key).arg(UNCACHED_ROWS_TTL_SECONDS).arg("NX"));
          }
          if (!uncached.isEmpty()) {
            transaction.add(generations.invalidation(uncached));
          }
          transaction.add(Request.cmd(Command.EXEC));
          return conn.batch(transaction).compose(results -> {
            boolean ran = results.get(results.size() - 1) != null;
            (ran ? updatesApplied : updatesConflicted).increment();
            return ran || attempts == 1 ? Future.succeededFuture(ran) : addRow(conn, ids, event, attempts - 1);
          });
        });
  }

  /** Marks a retracted post so that no fan-out of it is added to a page for a while. Never fails. */
  Future<Void> retracted(UUID eventId) {
    return generations == null ? Future.succeededFuture() : generations.mark(retractedKey(eventId));
  }

  /** Drops these friends' cached pages; call after their rows are in Cassandra. Never fails. */
  Future<Void> invalidate(List<Long> participantIds) {
    return generations == null ? Future.succeededFuture() : generations.invalidate(participantIds);
  }

  /** Friends whose pages wait for an invalidation to reach Redis (for tests and logs). */
  int pendingInvalidations() {
    return generations == null ? 0 : generations.pendingInvalidations();
  }

  void close() {
    if (generations != null) {
      generations.close();
    }
  }

  static String key(long participantId) {
    return StampedCache.valueKey(PREFIX, participantId);
  }

  static String generationKey(long participantId) {
    return StampedCache.generationKey(PREFIX, participantId);
  }

  static String retractedKey(UUID eventId) {
    return RETRACTED_PREFIX + eventId;
  }

  /**
   * The row's place in the feed as a string that sorts as Cassandra sorts timeuuids (TimeUUIDType): by timestamp
   * (19 digits), then by the other 8 bytes compared as signed bytes (16 hex digits, each byte's sign bit flipped).
   */
  static String orderKey(UUID occurred) {
    return String.format("%019d%016x", occurred.timestamp(), occurred.getLeastSignificantBits() ^ 0x8080808080808080L);
  }

  /** A row as a member of a page: its place, its cursor, its JSON. */
  static String member(InboundItem row) {
    return orderKey(row.occurred()) + " " + FeedCursor.encode(row.occurred()) + " " + row.toJson().encode();
  }

  /**
   * The page as {@link FeedPage#render} sends it, from its rows newest first (up to {@code limit + 1}), or null
   * when a row is not in the expected format (a miss).
   */
  static FeedPage.Body decode(List<String> rows, int limit) {
    StringBuilder json = new StringBuilder(rows.size() * 256).append('[');
    String cursor = null;
    for (int i = 0; i < Math.min(limit, rows.size()); i++) {
      String row = rows.get(i);
      int space = row.indexOf(' ', ORDER_KEY_LENGTH + 1);
      if (row.length() < ORDER_KEY_LENGTH + 3 || row.charAt(ORDER_KEY_LENGTH) != ' ' || space < 0
          || !row.startsWith("{", space + 1) || !row.endsWith("}")) {
        return null;
      }
      cursor = row.substring(ORDER_KEY_LENGTH + 1, space);
      json.append(i == 0 ? "" : ",").append(row, space + 1, row.length());
    }
    return new FeedPage.Body(json.append(']').toString(), rows.size() > limit ? cursor : null);
  }

  /** A page's members, highest first, and the highest one's score (null when the page is empty). */
  record Scored(String topScore, List<String> members) {
  }

  // RESP2 lists members and scores in turn (member, score, member, ...), RESP3 as [member, score] pairs
  static Scored scored(Response r) {
    if (r == null || r.size() == 0) {
      return new Scored(null, List.of());
    }
    boolean pairs = r.get(0).type() == ResponseType.MULTI;
    int size = pairs ? r.size() : r.size() / 2;
    List<String> members = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      members.add((pairs ? r.get(i).get(0) : r.get(2 * i)).toString());
    }
    String top = size == 0 ? null : (pairs ? r.get(0).get(1) : r.get(1)).toString();
    return new Scored(top, members);
  }
}
