package newsfeed.socialgraph;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The Redis cache-aside of participants and friend lists. It never fails a request: a Redis error is counted
 * (newsfeed_cache_errors_total), logged (rate-limited) and treated as a miss, and PostgreSQL answers instead.
 *
 * <p>Friend lists carry a generation so a write can never be undone by a slow reader: each friendship write sets
 * a fresh random generation key per participant (and deletes the list); a reader reads list and generation
 * together (MGET) and fills the list stamped with the generation it saw before querying PostgreSQL, and a list
 * whose stamp differs from the current generation is a miss. Invalidations that cannot reach Redis are retried
 * every {@link #RETRY_MS} until they do, and until then this instance reads those lists from PostgreSQL only.
 * (Other instances may serve such a list from the cache until the retry succeeds, i.e. for a Redis outage's
 * tail; the TTL bounds everything else.)
 *
 * <p>Participants never change once created, so they are cached without invalidation; unknown ids are not cached.
 */
public final class GraphCache {
  static final String PREFIX = "sg:v1:";
  /** Friend lists longer than this are not cached (the marker {@link #BIG} says so) but paged from PostgreSQL. */
  static final int MAX_CACHED_FRIENDS = 10_000;
  static final String BIG = "*";
  static final String NO_GENERATION = "-";
  static final long RETRY_MS = 500;
  static final int MAX_PENDING = 100_000;
  private static final int RETRY_BATCH = 500;

  /**
   * What the cache knows of a friend list: the list itself (a hit), "too big to cache" (a hit: page from
   * PostgreSQL), or a miss with the generation to stamp the fill with; stamp null means "do not fill".
   */
  public record FriendsLookup(List<Friend> friends, boolean big, String stamp) {
    static final FriendsLookup BYPASS = new FriendsLookup(null, false, null);
  }

  private final RedisStore redis;
  private final long ttlSeconds;
  private final long generationTtlSeconds;
  private final Counter participantHit;
  private final Counter participantMiss;
  private final Counter friendsHit;
  private final Counter friendsMiss;
  private final MeterRegistry registry;
  private final RateLimitedLog log = new RateLimitedLog(LoggerFactory.getLogger(GraphCache.class), 10_000);
  private final Set<Long> pendingInvalidations = new LinkedHashSet<>();
  private final Vertx vertx;
  private long retryTimer = -1;
  private boolean retrying;

  GraphCache(Vertx vertx, RedisStore redis, Duration ttl, MeterRegistry registry) {
    this.vertx = vertx;
    this.redis = redis;
    this.ttlSeconds = ttl.toSeconds();
    // outlives every list stamped before it was set (TTL + the slowest possible fill), so an expired generation
    // can never make an old stamp look current again
    this.generationTtlSeconds = 2 * ttlSeconds + 300;
    this.registry = registry;
    this.participantHit = requests("participant", "hit");
    this.participantMiss = requests("participant", "miss");
    this.friendsHit = requests("friends", "hit");
    this.friendsMiss = requests("friends", "miss");
  }

  private Counter requests(String cache, String result) {
    return Counter.builder("newsfeed.cache.requests").tag("cache", cache).tag("result", result).register(registry);
  }

  static String participantKey(long id) {
    return PREFIX + "participant:" + id;
  }

  static String friendsKey(long id) {
    return PREFIX + "friends:" + id;
  }

  static String generationKey(long id) {
    return PREFIX + "friends-gen:" + id;
  }

  /** The cached participant, or null (a miss, or Redis unavailable). */
  public Future<Participant> participant(long id) {
    if (!redis.available()) {
      participantMiss.increment();
      return Future.succeededFuture(null);
    }
    return redis.send("get", Request.cmd(Command.GET).arg(participantKey(id))).map(r -> {
      if (r == null) {
        participantMiss.increment();
        return (Participant) null;
      }
      participantHit.increment();
      return new Participant(id, r.toString());
    }).recover(err -> {
      failed("participant", "get", err);
      participantMiss.increment();
      return Future.succeededFuture(null);
    });
  }

  /** Caches a participant read from PostgreSQL; fire and forget. */
  public void putParticipant(Participant p) {
    if (redis.available()) {
      redis.send("set", Request.cmd(Command.SET).arg(participantKey(p.id())).arg(p.name()).arg("EX").arg(ttlSeconds))
          .onFailure(err -> failed("participant", "set", err));
    }
  }

  public Future<FriendsLookup> friends(long id) {
    if (!redis.available() || pendingInvalidations.contains(id)) {
      friendsMiss.increment();
      return Future.succeededFuture(FriendsLookup.BYPASS);
    }
    return redis.send("get", Request.cmd(Command.MGET).arg(friendsKey(id)).arg(generationKey(id))).map(r -> {
      FriendsLookup lookup = lookup(id, string(r.get(0)), string(r.get(1)));
      (lookup.stamp() == null ? friendsHit : friendsMiss).increment();
      return lookup;
    }).recover(err -> {
      failed("friends", "get", err);
      friendsMiss.increment();
      return Future.succeededFuture(FriendsLookup.BYPASS);
    });
  }

  /** Decides hit or miss from the cached value and the current generation (pure: unit-tested). */
  static FriendsLookup lookup(long id, String cached, String generation) {
    String current = generation == null ? NO_GENERATION : generation;
    if (cached != null) {
      int bar = cached.indexOf('|');
      if (bar > 0 && cached.substring(0, bar).equals(current)) {
        String payload = cached.substring(bar + 1);
        if (BIG.equals(payload)) {
          return new FriendsLookup(null, true, null);
        }
        List<Friend> friends = decode(id, payload);
        if (friends != null) {
          return new FriendsLookup(friends, false, null);
        }
      }
    }
    return new FriendsLookup(null, false, current);
  }

  /** Caches the complete friend list read from PostgreSQL (sorted by friend id), or the "too big" marker. */
  public void putFriends(long id, String stamp, List<Friend> all) {
    if (stamp == null || !redis.available() || pendingInvalidations.contains(id)) {
      return;
    }
    String value = stamp + "|" + (all.size() > MAX_CACHED_FRIENDS ? BIG : encode(all));
    redis.send("set", Request.cmd(Command.SET).arg(friendsKey(id)).arg(value).arg("EX").arg(ttlSeconds))
        .onFailure(err -> failed("friends", "set", err));
  }

  /**
   * Makes the cached friend lists of these participants stale. Never fails: what cannot reach Redis now is
   * retried in the background, and these lists are read from PostgreSQL here until then.
   */
  public Future<Void> invalidateFriends(long... ids) {
    List<Long> list = new ArrayList<>(ids.length);
    for (long id : ids) {
      list.add(id);
    }
    if (!redis.available()) {
      remember(list);
      return Future.succeededFuture();
    }
    return sendInvalidation(list).recover(err -> {
      failed("friends", "delete", err);
      remember(list);
      return Future.succeededFuture();
    });
  }

  private Future<Void> sendInvalidation(List<Long> ids) {
    List<Request> requests = new ArrayList<>(ids.size() + 1);
    Request delete = Request.cmd(Command.DEL);
    for (long id : ids) {
      String generation = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
      requests.add(Request.cmd(Command.SET).arg(generationKey(id)).arg(generation).arg("EX").arg(generationTtlSeconds));
      delete.arg(friendsKey(id));
    }
    requests.add(delete);
    return redis.batch("delete", requests).mapEmpty();
  }

  private void remember(List<Long> ids) {
    for (long id : ids) {
      if (pendingInvalidations.size() >= MAX_PENDING) {
        log.warn("pending-overflow", "too many pending cache invalidations, dropping some (the TTL bounds staleness)",
            null);
        return;
      }
      pendingInvalidations.add(id);
    }
    if (retryTimer < 0) {
      retryTimer = vertx.setPeriodic(RETRY_MS, t -> retryPending());
    }
  }

  private void retryPending() {
    if (retrying || !redis.available()) {
      return;
    }
    if (pendingInvalidations.isEmpty()) {
      vertx.cancelTimer(retryTimer);
      retryTimer = -1;
      return;
    }
    List<Long> batch = new ArrayList<>(Math.min(RETRY_BATCH, pendingInvalidations.size()));
    for (Long id : pendingInvalidations) {
      if (batch.size() == RETRY_BATCH) {
        break;
      }
      batch.add(id);
    }
    retrying = true;
    sendInvalidation(batch)
        .onSuccess(v -> batch.forEach(pendingInvalidations::remove))
        .onFailure(err -> failed("friends", "delete", err))
        .onComplete(ar -> retrying = false);
  }

  /** Participants whose lists still wait for an invalidation to reach Redis (for tests and logs). */
  int pendingInvalidations() {
    return pendingInvalidations.size();
  }

  public void close() {
    if (retryTimer >= 0) {
      vertx.cancelTimer(retryTimer);
    }
    if (!pendingInvalidations.isEmpty()) {
      LoggerFactory.getLogger(GraphCache.class).warn(
          "stopping with {} cache invalidations that never reached Redis (stale for at most {} s)",
          pendingInvalidations.size(), ttlSeconds);
    }
  }

  private void failed(String cache, String operation, Throwable err) {
    Counter.builder("newsfeed.cache.errors").tag("cache", cache).tag("operation", operation)
        .register(registry).increment();
    log.warn("redis-" + operation, "cache " + cache + " " + operation + " failed, serving from PostgreSQL", err);
  }

  private static String string(Response r) {
    return r == null ? null : r.toString();
  }

  /** "rowId:friendId,rowId:friendId,..." in friend id order; "" is no friends. */
  static String encode(List<Friend> friends) {
    StringBuilder sb = new StringBuilder(friends.size() * 20);
    for (Friend f : friends) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(f.id()).append(':').append(f.to());
    }
    return sb.toString();
  }

  /** The list, or null when the value is not in the expected format (treated as a miss). */
  static List<Friend> decode(long from, String payload) {
    if (payload.isEmpty()) {
      return List.of();
    }
    String[] items = payload.split(",");
    List<Friend> friends = new ArrayList<>(items.length);
    try {
      for (String item : items) {
        int colon = item.indexOf(':');
        long rowId = Long.parseLong(item.substring(0, colon));
        friends.add(new Friend(rowId, from, Long.parseLong(item.substring(colon + 1))));
      }
    } catch (RuntimeException e) {
      return null;
    }
    return friends;
  }
}
