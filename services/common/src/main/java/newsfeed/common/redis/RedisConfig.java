package newsfeed.common.redis;

import io.vertx.redis.client.RedisOptions;
import newsfeed.common.config.Env;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

/**
 * The Redis connection of a service's cache: REDIS_URL, REDIS_PASSWORD, REDIS_TIMEOUT_MS, REDIS_POOL_SIZE
 * (docs/contracts.md).
 */
public record RedisConfig(String url, String password, Duration timeout, int poolSize) {

  public static RedisConfig fromEnv(Env e) {
    return new RedisConfig(
        url(e.string("REDIS_URL", "redis://localhost:6379")),
        e.optional("REDIS_PASSWORD"),
        Duration.ofMillis(e.integer("REDIS_TIMEOUT_MS", 250, 10, 60_000)),
        // a pooled connection carries one command at a time: with 16, inbound's fan-out invalidations (16 posts at
        // once) held every connection, reads queued behind them and 1 % of the calls passed REDIS_TIMEOUT_MS
        e.integer("REDIS_POOL_SIZE", 64, 1, 1024));
  }

  // a typo in the URL would otherwise only show up as "cache errors" at run time
  static String url(String url) {
    try {
      URI uri = new URI(url);
      if (("redis".equals(uri.getScheme()) || "rediss".equals(uri.getScheme())) && uri.getHost() != null) {
        return url;
      }
    } catch (URISyntaxException ignored) {
      // reported below
    }
    throw new IllegalArgumentException("REDIS_URL must look like redis://host:port[/db], got '" + url + "'");
  }

  public RedisOptions options() {
    RedisOptions options = new RedisOptions().setConnectionString(url)
        .setMaxPoolSize(poolSize).setMaxPoolWaiting(1024).setMaxWaitingHandlers(4096);
    options.getNetClientOptions().setConnectTimeout((int) Math.max(timeout.toMillis(), 100));
    if (password != null) {
      options.setPassword(password);
    }
    return options;
  }

  /** Never prints a password, neither REDIS_PASSWORD nor one inside the URL. */
  @Override
  public String toString() {
    return url.replaceAll("//[^@/]*@", "//***@") + " timeout=" + timeout + " pool=" + poolSize;
  }
}
