package newsfeed.socialgraph;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import newsfeed.common.logging.RateLimitedLog;
import newsfeed.common.redis.RedisStore;
import newsfeed.common.redis.StampedCache;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The Redis cache-aside of participants and friend lists. It never fails a request: a Redis error is counted
 * (newsfeed_cache_errors_total), logged (rate-limited) and treated as a miss, and PostgreSQL answers instead.
 *
 * <p>Friend lists are a {@link StampedCache}: a friendship write (or its cancellation, {@link Cancellations}) deletes
 * both participants' lists and generations, so a slow reader, whose fill carries the generation it read before, can
 * never put back a list from before the write.
 *
 * <p>Participants never change once created, so they are cached without invalidation (only one whose create was
 * answered 503 is deleted, {@link Cancellations}); unknown ids are not cached.
 */
public final class GraphCache {
  static final String PREFIX = "sg:v1:";
  private static final String FRIENDS_PREFIX = PREFIX + "friends";
  /** Friend lists longer than this are not cached (the marker {@link #BIG} says so) but paged from PostgreSQL. */
  static final int MAX_CACHED_FRIENDS = 10_000;
  static final String BIG = "*";

  /**
   * What the cache knows of a friend list: the list itself (a hit), "too big to cache" (a hit: page from
   * PostgreSQL), or a miss with the generation to stamp the fill with; stamp null means "do not fill".
   */
  public record FriendsLookup(List<Friend> friends, boolean big, String stamp) {
    static final FriendsLookup BYPASS = new FriendsLookup(null, false, null);
  }

  private final RedisStore redis;
  private final StampedCache friendLists;
  private final long ttlSeconds;
  private final Counter participantHit;
  private final Counter participantMiss;
  private final MeterRegistry registry;
  private final RateLimitedLog log = new RateLimitedLog(LoggerFactory.getLogger(GraphCache.class), 10_000);

  GraphCache(Vertx vertx, RedisStore redis, Duration ttl, MeterRegistry registry) {
    this.redis = redis;
    this.friendLists = new StampedCache(vertx, redis, "friends", FRIENDS_PREFIX, ttl, registry);
    this.ttlSeconds = ttl.toSeconds();
    this.registry = registry;
    this.participantHit = requests("participant", "hit");
    this.participantMiss = requests("participant", "miss");
  }

  private Counter requests(String cache, String result) {
    return Counter.builder("newsfeed.cache.requests").tag("cache", cache).tag("result", result).register(registry);
  }

  static String participantKey(long id) {
    return PREFIX + "participant:" + id;
  }

  static String friendsKey(long id) {
    return StampedCache.valueKey(FRIENDS_PREFIX, id);
  }

  static String generationKey(long id) {
    return StampedCache.generationKey(FRIENDS_PREFIX, id);
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

  /** Removes a cached participant that was deleted; fire and forget (a copy Redis keeps expires with its TTL). */
  public void forgetParticipant(long id) {
    if (redis.available()) {
      redis.send("delete", Request.cmd(Command.DEL).arg(participantKey(id)))
          .onFailure(err -> failed("participant", "delete", err));
    }
  }

  public Future<FriendsLookup> friends(long id) {
    return friendLists.get(id, payload -> hit(id, payload)).map(GraphCache::friendsLookup);
  }

  /** Decides hit or miss from the cached value and the current generation (pure: unit-tested). */
  static FriendsLookup lookup(long id, String cached, String generation) {
    return friendsLookup(StampedCache.lookup(cached, generation, payload -> hit(id, payload)));
  }

  private static FriendsLookup friendsLookup(StampedCache.Lookup<FriendsLookup> lookup) {
    return lookup.hit() ? lookup.value()
        : lookup.stamp() == null ? FriendsLookup.BYPASS : new FriendsLookup(null, false, lookup.stamp());
  }

  // a cached payload as a hit, or null when it cannot be read
  private static FriendsLookup hit(long id, String payload) {
    if (BIG.equals(payload)) {
      return new FriendsLookup(null, true, null);
    }
    List<Friend> friends = decode(id, payload);
    return friends == null ? null : new FriendsLookup(friends, false, null);
  }

  /** Caches the complete friend list read from PostgreSQL (sorted by friend id), or the "too big" marker. */
  public void putFriends(long id, String stamp, List<Friend> all) {
    friendLists.put(id, stamp, all.size() > MAX_CACHED_FRIENDS ? BIG : encode(all));
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
    return friendLists.invalidate(list);
  }

  /** Participants whose lists still wait for an invalidation to reach Redis (for tests and logs). */
  int pendingInvalidations() {
    return friendLists.pendingInvalidations();
  }

  public void close() {
    friendLists.close();
  }

  private void failed(String cache, String operation, Throwable err) {
    Counter.builder("newsfeed.cache.errors").tag("cache", cache).tag("operation", operation)
        .register(registry).increment();
    log.warn("redis-" + operation, "cache " + cache + " " + operation + " failed, serving from PostgreSQL", err);
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
