package newsfeed.common.testing;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import newsfeed.common.config.Env;
import newsfeed.common.redis.RedisConfig;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The running stack's Redis for integration tests: a client set up as the services set theirs up, and evictions. */
public final class StackRedis {
  private StackRedis() {
  }

  /** A client of the stack's Redis (REDIS_URL) with the services' options. */
  public static Redis client(Vertx vertx) {
    return Redis.createClient(vertx,
        RedisConfig.fromEnv(new Env(Map.of("REDIS_URL", StackEnv.get("REDIS_URL")))).options());
  }

  /** Removes key as Redis does when it evicts it at its memory limit (maxmemory-policy); fails unless it was there. */
  public static void evict(Redis redis, String key) {
    assertEquals(1L, redis.send(Request.cmd(Command.DEL).arg(key)).await().toLong(), "evicted " + key);
  }
}
