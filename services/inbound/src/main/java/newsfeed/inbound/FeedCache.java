package newsfeed.inbound;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.http.FeedCursor;
import newsfeed.common.http.FeedPage;
import newsfeed.common.redis.RedisStore;
import newsfeed.common.redis.StampedCache;
import newsfeed.common.redis.StampedCache.Lookup;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The first page of each inbound feed at the default page size, in Redis: most reads of a news feed are of its
 * first page, and a hit costs neither Cassandra nor the JSON encoding of its rows. It is a write-through cache:
 * fan-out, after writing a friend's row, adds the post to that friend's cached page, so a feed that is written to
 * stays cached. Off ({@link #off()}) when INBOUND_CACHE_TTL_SECONDS is 0.
 *
 * <p>A page is a sorted set whose members all score 0, so Redis orders them by their bytes: one member per row,
 * {@link #orderKey} (which sorts as Cassandra sorts the rows' timeuuids), the row's cursor and its JSON, separated
 * by spaces; and a stamp member, "~" and the generation it was written under, which sorts above every row. It holds
 * the newest {@code limit + 1} rows of the feed, or all of them when there are fewer: the one past the page says
 * that more follow. Adding a post is a ZADD and a ZREMRANGEBYRANK that drops the oldest row past {@code limit + 1}:
 * a few hundred bytes per friend, whatever the page holds.
 *
 * <p>The rules are a {@link StampedCache}'s (whose generation keys, invalidations and their retries this shares):
 * a reader fills a page stamped with the generation it saw before reading Cassandra, and a page whose stamp is not
 * the current generation is a miss. Fan-out updates the pages of a write request's friends in one optimistic
 * transaction: WATCH their pages and generations, read each page's stamp, then MULTI: a new generation per friend,
 * and a current page gets the row and the new stamp, any other is dropped; EXEC. A write, a fill or an expiry in
 * between makes EXEC fail, and the transaction runs again on what is there now ({@link #UPDATE_ATTEMPTS} times,
 * then the pages are dropped). A page keeps the expiry of its fill: it lives at most the TTL after it was read from
 * Cassandra. A retraction marks its post for a generation's lifetime and drops the friends' pages, so the post,
 * fanned out again or late (a redelivery, the two in one batch), is never added back.
 */
public final class FeedCache {
  static final String PREFIX = "ib:v2:page";
  static final String RETRACTED_PREFIX = "ib:v2:retracted:";
  /** Characters of {@link #orderKey}: 19 digits of the timestamp, 16 hex digits of the rest. */
  static final int ORDER_KEY_LENGTH = 35;
  static final String STAMP = "~";
  /** Runs of an update transaction before its pages are dropped instead: other writes came in between. */
  static final int UPDATE_ATTEMPTS = 3;

  private final StampedCache generations;
  private final RedisStore redis;
  private final Counter updatesApplied;
  private final Counter updatesConflicted;

  FeedCache(StampedCache generations, RedisStore redis, MeterRegistry registry) {
    this.generations = generations;
    this.redis = redis;
    this.updatesApplied = registry == null ? null : updates(registry, "applied");
    this.updatesConflicted = registry == null ? null : updates(registry, "conflict");
  }

  // update transactions: applied, or run again (or given up) after another write came in between
  private static Counter updates(MeterRegistry registry, String result) {
    return Counter.builder("newsfeed.cache.updates").tag("cache", "inbound").tag("result", result)
        .register(registry);
  }

  static FeedCache off() {
    return new FeedCache(null, null, null);
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
    return redis.batch("get", List.of(Request.cmd(Command.GET).arg(generationKey(participantId)),
        Request.cmd(Command.ZRANGE).arg(key(participantId)).arg(0).arg(-1).arg("REV"))).map(answers -> {
          Lookup<FeedPage.Body> lookup = lookup(RedisStore.string(answers.get(0)), members(answers.get(1)),
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
   * Hit or miss from the generation and the page's members, highest first (pure: unit-tested): a hit when the
   * stamp member is the current generation and rows follow it.
   */
  static Lookup<FeedPage.Body> lookup(String generation, List<String> members, int limit) {
    String current = StampedCache.current(generation);
    if (members.size() >= 2 && members.get(0).equals(STAMP + current)) {
      FeedPage.Body page = decode(members.subList(1, members.size()), limit);
      if (page != null) {
        return new Lookup<>(page, null);
      }
    }
    return new Lookup<>(null, current);
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
    Request add = Request.cmd(Command.ZADD).arg(key).arg(0).arg(STAMP + stamp);
    for (InboundItem row : rows.subList(0, Math.min(rows.size(), limit + 1))) {
      add.arg(0).arg(member(row));
    }
    // one transaction: never a page without its expiry
    return redis.transaction("set", conn -> conn.batch(List.of(Request.cmd(Command.MULTI),
        Request.cmd(Command.DEL).arg(key), add, Request.cmd(Command.EXPIRE).arg(key).arg(generations.ttlSeconds()),
        Request.cmd(Command.EXEC)))).<Void>mapEmpty().recover(err -> {
          generations.failed("set", err);
          return Future.succeededFuture();
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
        : redis.transaction("update", conn -> addRow(conn, updated, event, UPDATE_ATTEMPTS))
            .recover(err -> {
              generations.failed("update", err);
              return Future.succeededFuture(false);
            })
            .compose(applied -> applied ? Future.succeededFuture() : generations.invalidate(updated));
    return dropped.isEmpty() ? update : update.compose(v -> generations.invalidate(dropped));
  }

  // true when a transaction ran; false when another write came in between every time (nothing was written then)
  private Future<Boolean> addRow(RedisConnection conn, List<Long> ids, OutboundPostedEvent event, int attempts) {
    String marker = retractedKey(event.eventId());
    Request watch = Request.cmd(Command.WATCH).arg(marker);
    Request read = Request.cmd(Command.MGET).arg(marker);
    List<Request> reads = new ArrayList<>(ids.size() + 2);
    reads.add(watch);
    reads.add(read);
    for (long id : ids) {
      watch.arg(key(id)).arg(generationKey(id));
      read.arg(generationKey(id));
      reads.add(Request.cmd(Command.ZRANGE).arg(key(id)).arg(-1).arg(-1));   // the stamp: the highest member
    }
    return conn.batch(reads).compose(answers -> {
      Response generationsNow = answers.get(1);
      boolean retracted = generationsNow.get(0) != null;
      List<Request> transaction = new ArrayList<>(4 * ids.size() + 2);
      transaction.add(Request.cmd(Command.MULTI));
      for (int i = 0; i < ids.size(); i++) {
        long id = ids.get(i);
        String generation = StampedCache.newGeneration();
        transaction.add(generations.setGeneration(id, generation));
        String current = StampedCache.current(RedisStore.string(generationsNow.get(1 + i)));
        List<String> stamp = members(answers.get(2 + i));
        if (retracted || stamp.size() != 1 || !stamp.get(0).equals(STAMP + current)) {
          transaction.add(Request.cmd(Command.DEL).arg(key(id)));
          continue;
        }
        transaction.add(Request.cmd(Command.ZREM).arg(key(id)).arg(stamp.get(0)));
        transaction.add(Request.cmd(Command.ZADD).arg(key(id)).arg(0).arg(STAMP + generation).arg(0)
            .arg(member(new InboundItem(id, event.eventId(), event.participantId(), event.givenOccurred(),
                event.subject(), event.story()))));
        // the stamp and limit + 1 rows stay: the oldest beyond them (maybe the new row itself) leaves
        transaction.add(Request.cmd(Command.ZREMRANGEBYRANK).arg(key(id)).arg(0).arg(-(FeedPage.DEFAULT_LIMIT + 3)));
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

  private static List<String> members(Response r) {
    List<String> members = new ArrayList<>(r == null ? 0 : r.size());
    if (r != null) {
      r.forEach(m -> members.add(m.toString()));
    }
    return members;
  }
}
