package newsfeed.common.redis;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import newsfeed.common.logging.RateLimitedLog;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * A cache-aside in Redis of values that writes make stale (a friend list, a feed page), keyed by a participant id.
 * It never fails a request: a Redis error is counted (newsfeed_cache_errors_total{cache}), logged (rate-limited)
 * and treated as a miss, and the store of record answers instead.
 *
 * <p>A write can never be undone by a slow reader: a reader reads the value with its generation key (one round
 * trip), putting a fresh random generation in place when there is none (SET NX GET), and fills the value stamped with
 * the generation it saw before reading the store; a value whose stamp differs from the current generation is a miss.
 * A write, after the store of record has it, deletes the value and the generation, so the next reader puts a fresh
 * one in place that no value carries: a fill read before the write is never current again, and a generation that
 * expired or that Redis evicted at its memory limit is no different. (A {@link #counted} cache's callers may instead
 * apply a write to a cached value and count it in the generation and the value's stamp.) Generations so exist only
 * for ids read recently, not for every id written. Invalidations that cannot reach Redis are retried every
 * {@link #RETRY_MS} until they do, and until then this instance reads those ids from the store only. (Other
 * instances may serve such a value from the cache until the retry succeeds, i.e. for a Redis outage's tail; the TTL
 * bounds everything else.)
 */
public final class StampedCache {
  static final long RETRY_MS = 500;
  /**
   * A counted cache's fresh generations lie in [2^32, 2^52): far from any other's count, and exact as a sorted
   * set's score (a double) for as many writes as a generation lives.
   */
  static final long COUNT_BASE_MIN = 1L << 32;
  static final long COUNT_BASE_RANGE = (1L << 52) - COUNT_BASE_MIN;
  static final int MAX_PENDING = 100_000;
  private static final int RETRY_BATCH = 500;

  /** A hit (value), a miss to fill stamped with {@code stamp}, or neither: read the store and do not fill. */
  public record Lookup<T>(T value, String stamp) {
    public static <T> Lookup<T> bypass() {
      return new Lookup<>(null, null);
    }

    public boolean hit() {
      return value != null;
    }
  }

  private final Vertx vertx;
  private final RedisStore redis;
  private final String cache;
  private final String prefix;
  private final long ttlSeconds;
  private final long generationTtlSeconds;
  private final boolean counted;
  private final MeterRegistry registry;
  private final Counter hits;
  private final Counter misses;
  private final RateLimitedLog log = new RateLimitedLog(LoggerFactory.getLogger(StampedCache.class), 10_000);
  private final Set<Long> pendingInvalidations = new LinkedHashSet<>();
  private long retryTimer = -1;
  private boolean retrying;

  /**
   * @param cache  the metrics' {@code cache} label
   * @param prefix of the keys: the value of id 42 is {@code <prefix>:42}, its generation {@code <prefix>-gen:42}
   */
  public StampedCache(Vertx vertx, RedisStore redis, String cache, String prefix, Duration ttl,
                      MeterRegistry registry) {
    this(vertx, redis, cache, prefix, ttl, registry, false);
  }

  private StampedCache(Vertx vertx, RedisStore redis, String cache, String prefix, Duration ttl,
                       MeterRegistry registry, boolean counted) {
    this.vertx = vertx;
    this.counted = counted;
    this.redis = redis;
    this.cache = cache;
    this.prefix = prefix;
    this.ttlSeconds = ttl.toSeconds();
    // outlives the values stamped with it (TTL + a slow fill): a generation gone first costs its value a miss
    this.generationTtlSeconds = 2 * ttlSeconds + 300;
    this.registry = registry;
    this.hits = requests("hit");
    this.misses = requests("miss");
  }

  /**
   * A cache whose generations are numbers a write can count up (INCR): for callers that apply a write to a value
   * themselves and count it in the value's stamp, so that the value stays current ({@link #countedWrite}).
   */
  public static StampedCache counted(Vertx vertx, RedisStore redis, String cache, String prefix, Duration ttl,
                                     MeterRegistry registry) {
    return new StampedCache(vertx, redis, cache, prefix, ttl, registry, true);
  }

  private Counter requests(String result) {
    return Counter.builder("newsfeed.cache.requests").tag("cache", cache).tag("result", result).register(registry);
  }

  /** The key of id's value in a cache of key prefix {@code prefix}. */
  public static String valueKey(String prefix, long id) {
    return prefix + ":" + id;
  }

  /** The key of id's generation in a cache of key prefix {@code prefix}. */
  public static String generationKey(String prefix, long id) {
    return prefix + "-gen:" + id;
  }

  private String valueKey(long id) {
    return valueKey(prefix, id);
  }

  private String generationKey(long id) {
    return generationKey(prefix, id);
  }

  /** Never fails. {@code decode} turns a cached value into T, or null when it is unreadable (then a miss). */
  public <T> Future<Lookup<T>> get(long id, Function<String, T> decode) {
    if (bypasses(id)) {
      misses.increment();
      return Future.succeededFuture(Lookup.bypass());
    }
    GenerationRead generation = readGeneration(id);
    return redis.batch("get", List.of(Request.cmd(Command.GET).arg(valueKey(id)), generation.request()))
        .map(r -> {
          Lookup<T> lookup = lookup(RedisStore.string(r.get(0)), generation.current(r.get(1)), decode);
          (lookup.hit() ? hits : misses).increment();
          return lookup;
        }).recover(err -> {
          failed("get", err);
          misses.increment();
          return Future.succeededFuture(Lookup.bypass());
        });
  }

  /**
   * Decides hit or miss from the cached value and the current generation (pure: unit-tested); a bypass when the
   * generation is unknown.
   */
  public static <T> Lookup<T> lookup(String cached, String generation, Function<String, T> decode) {
    if (generation == null) {
      return Lookup.bypass();
    }
    if (cached != null) {
      int bar = cached.indexOf('|');
      if (bar > 0 && cached.substring(0, bar).equals(generation)) {
        T value = decode.apply(cached.substring(bar + 1));
        if (value != null) {
          return new Lookup<>(value, null);
        }
      }
    }
    return new Lookup<>(null, generation);
  }

  /** A generation no value carries: random, and in a {@link #counted} cache a number in [2^32, 2^52). */
  String freshGeneration() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return counted ? Long.toString(COUNT_BASE_MIN + random.nextLong(COUNT_BASE_RANGE))
        : Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
  }

  /**
   * A read of id's generation that puts a fresh one in its place when there is none (SET NX GET, Redis 7.0 or newer):
   * send {@code request}, and {@code current} tells the generation from its answer.
   */
  public record GenerationRead(Request request, String fresh) {
    /** The generation there was, or the fresh one the read put in place. */
    public String current(Response answer) {
      String there = RedisStore.string(answer);
      return there == null ? fresh : there;
    }
  }

  public GenerationRead readGeneration(long id) {
    String fresh = freshGeneration();
    return new GenerationRead(Request.cmd(Command.SET).arg(generationKey(id)).arg(fresh).arg("NX").arg("GET")
        .arg("EX").arg(generationTtlSeconds), fresh);
  }

  /** Caches a value read from the store after the miss that gave {@code stamp}; never fails. */
  public Future<Void> put(long id, String stamp, String value) {
    if (stamp == null || bypasses(id)) {
      return Future.succeededFuture();
    }
    return redis.send("set", Request.cmd(Command.SET).arg(valueKey(id)).arg(stamp + "|" + value).arg("EX")
        .arg(ttlSeconds)).<Void>mapEmpty().recover(err -> {
          failed("set", err);
          return Future.succeededFuture();
        });
  }

  /**
   * True when id's value must not be read or written now: Redis is being skipped after a failure, or an
   * invalidation of id has not reached it yet. Callers with values of their own (not strings: see
   * {@link #get}) ask this first, and count what they read with {@link #count}.
   */
  public boolean bypasses(long id) {
    return !redis.available() || pendingInvalidations.contains(id);
  }

  /** Counts a lookup a caller made itself (newsfeed_cache_requests_total). */
  public void count(boolean hit) {
    (hit ? hits : misses).increment();
  }

  /**
   * A write counted in id's generation ({@link #counted} caches only), for a caller that applies the write to the
   * cached value and raises its stamp by one in the same transaction: the generation plus one, or a fresh one plus
   * one when there is none (deleted by a write, expired or evicted: then no value is current, whatever its stamp).
   */
  public List<Request> countedWrite(long id) {
    if (!counted) {
      throw new IllegalStateException("cache " + cache + " does not count its writes");
    }
    return List.of(Request.cmd(Command.SET).arg(generationKey(id)).arg(freshGeneration()).arg("NX").arg("EX")
        .arg(generationTtlSeconds),
        Request.cmd(Command.INCR).arg(generationKey(id)),
        Request.cmd(Command.EXPIRE).arg(generationKey(id)).arg(generationTtlSeconds));
  }

  public long ttlSeconds() {
    return ttlSeconds;
  }

  /** Sets a plain key for as long as a generation lives (e.g. a marker a writer reads); never fails. */
  public Future<Void> mark(String key) {
    if (!redis.available()) {
      return Future.succeededFuture();
    }
    return redis.send("mark", Request.cmd(Command.SET).arg(key).arg("1").arg("EX").arg(generationTtlSeconds))
        .<Void>mapEmpty().recover(err -> {
          failed("mark", err);
          return Future.succeededFuture();
        });
  }

  /**
   * Makes the cached values of these ids stale; call it after the store of record has the write. Never fails:
   * what cannot reach Redis now is retried in the background, and these ids are read from the store here until then.
   */
  public Future<Void> invalidate(Collection<Long> ids) {
    if (ids.isEmpty()) {
      return Future.succeededFuture();
    }
    if (!redis.available()) {
      remember(ids);
      return Future.succeededFuture();
    }
    return sendInvalidation(ids).recover(err -> {
      failed("delete", err);
      remember(ids);
      return Future.succeededFuture();
    });
  }

  /**
   * Makes these ids' cached values stale now, or fails: while Redis is backing off, or when the call fails (counted
   * and logged). Nothing is remembered for a retry: for callers that retry themselves ({@link #invalidate} when
   * they give up).
   */
  public Future<Void> tryInvalidate(Collection<Long> ids) {
    if (ids.isEmpty()) {
      return Future.succeededFuture();
    }
    if (!redis.available()) {
      return Future.failedFuture("redis is backing off after a failure");
    }
    return sendInvalidation(ids).onFailure(err -> failed("delete", err));
  }

  private Future<Void> sendInvalidation(Collection<Long> ids) {
    return redis.send("delete", invalidation(ids)).mapEmpty();
  }

  /** One DEL of these ids' values and generations: an invalidation (part of {@link #invalidate}). */
  public Request invalidation(Collection<Long> ids) {
    Request delete = Request.cmd(Command.DEL);
    for (long id : ids) {
      delete.arg(valueKey(id)).arg(generationKey(id));
    }
    return delete;
  }

  private void remember(Collection<Long> ids) {
    for (long id : ids) {
      if (pendingInvalidations.size() >= MAX_PENDING) {
        log.warn(cache + "-pending-overflow",
            "too many pending " + cache + " cache invalidations, dropping some (the TTL bounds staleness)", null);
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
        .onFailure(err -> failed("delete", err))
        .onComplete(ar -> retrying = false);
  }

  /** Ids whose values still wait for an invalidation to reach Redis (for tests and logs). */
  public int pendingInvalidations() {
    return pendingInvalidations.size();
  }

  public void close() {
    if (retryTimer >= 0) {
      vertx.cancelTimer(retryTimer);
    }
    if (!pendingInvalidations.isEmpty()) {
      LoggerFactory.getLogger(StampedCache.class).warn(
          "stopping with {} {} cache invalidations that never reached Redis (stale for at most {} s)",
          pendingInvalidations.size(), cache, ttlSeconds);
    }
  }

  /** Counts and logs (rate-limited) a Redis call of this cache that failed. */
  public void failed(String operation, Throwable err) {
    Counter.builder("newsfeed.cache.errors").tag("cache", cache).tag("operation", operation)
        .register(registry).increment();
    log.warn(cache + "-" + operation, "cache " + cache + " " + operation + " failed, serving from the store", err);
  }
}
