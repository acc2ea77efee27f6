package newsfeed.common.redis;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import newsfeed.common.metrics.StoreTimers;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Redis as an optional store: every command is timed (newsfeed_store_client_seconds{store="redis"}) and bounded
 * by REDIS_TIMEOUT_MS, and after a failure Redis is skipped for {@link #BACKOFF_MS} so a dead or black-holed Redis
 * costs at most one timeout per back-off period instead of one per request.
 */
public final class RedisStore {
  public static final long BACKOFF_MS = 1_000;

  private final Redis redis;
  private final MeterRegistry registry;
  private final long timeoutMs;
  private final Map<String, Timer[]> timers = new ConcurrentHashMap<>();
  private volatile long skipUntilNanos = System.nanoTime();

  /** A pooled client of {@code config}'s Redis on {@code vertx}. */
  public static RedisStore create(Vertx vertx, RedisConfig config, MeterRegistry registry) {
    return new RedisStore(Redis.createClient(vertx, config.options()), registry, config.timeout().toMillis());
  }

  public RedisStore(Redis redis, MeterRegistry registry, long timeoutMs) {
    this.redis = redis;
    this.registry = registry;
    this.timeoutMs = timeoutMs;
  }

  /** False while backing off after a failure: callers then do without the cache. */
  public boolean available() {
    return System.nanoTime() - skipUntilNanos >= 0;
  }

  /** How long the back-off after the last failure still lasts: 0 when Redis is {@link #available}. */
  public long backoffRemainingMillis() {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(skipUntilNanos - System.nanoTime()));
  }

  public Future<Response> send(String operation, Request request) {
    return call(operation, () -> redis.send(request));
  }

  public Future<List<Response>> batch(String operation, List<Request> requests) {
    return call(operation, () -> redis.batch(requests));
  }

  /**
   * Runs {@code work} on a connection of its own (for WATCH ... MULTI/EXEC, whose state is the connection's), timed
   * and bounded like one command; the connection goes back to the pool when the work is done.
   */
  public <T> Future<T> transaction(String operation, Function<RedisConnection, Future<T>> work) {
    return call(operation, () -> redis.connect().compose(conn -> work.apply(conn).andThen(ar -> conn.close())));
  }

  public Future<Void> close() {
    return redis.close();
  }

  /** A reply as a string, null for Redis' nil (a key that does not exist). */
  public static String string(Response reply) {
    return reply == null ? null : reply.toString();
  }

  private <T> Future<T> call(String operation, Supplier<Future<T>> command) {
    Timer[] t = timers.computeIfAbsent(operation, op -> new Timer[] {
        StoreTimers.timer(registry, "redis", op, "success"), StoreTimers.timer(registry, "redis", op, "error")});
    return StoreTimers.time(() -> command.get().timeout(timeoutMs, TimeUnit.MILLISECONDS), t[0], t[1])
        .onFailure(err -> skipUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BACKOFF_MS));
  }
}
