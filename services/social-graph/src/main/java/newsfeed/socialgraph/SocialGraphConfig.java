package newsfeed.socialgraph;

import io.vertx.pgclient.PgConnectOptions;
import io.vertx.redis.client.RedisOptions;
import newsfeed.common.Env;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Map;

/** Everything social-graph reads from its environment (docs/contracts.md), parsed once at start. */
public record SocialGraphConfig(String httpHost, int httpPort, Duration shutdownGrace, int httpMaxBodyBytes,
                                String pgHost, int pgPort, String pgDatabase, String pgUser, String pgPassword,
                                int pgPoolSize, String redisUrl, String redisPassword, Duration redisTtl,
                                Duration redisTimeout) {
  private static final int PG_CONNECT_TIMEOUT_MS = 2_000;
  private static final int REDIS_POOL_SIZE = 16;

  public static SocialGraphConfig fromEnv(Map<String, String> env) {
    Env e = new Env(env);
    return new SocialGraphConfig(
        e.string("HTTP_HOST", "0.0.0.0"),
        e.integer("HTTP_PORT", 8080, 1, 65535),
        Duration.ofSeconds(e.integer("SHUTDOWN_GRACE_SECONDS", 20, 0, 3600)),
        e.integer("HTTP_MAX_BODY_BYTES", 65536, 256, 16 * 1024 * 1024),
        e.string("PG_HOST", "localhost"),
        e.integer("PG_PORT", 5432, 1, 65535),
        e.string("PG_DATABASE", "newsfeed"),
        e.string("PG_USER", "newsfeed"),
        e.optional("PG_PASSWORD"),
        e.integer("PG_POOL_SIZE", 16, 1, 1000),
        redisUrl(e.string("REDIS_URL", "redis://localhost:6379")),
        e.optional("REDIS_PASSWORD"),
        Duration.ofSeconds(e.integer("REDIS_TTL_SECONDS", 300, 1, 7 * 24 * 3600)),
        Duration.ofMillis(e.integer("REDIS_TIMEOUT_MS", 250, 10, 60_000)));
  }

  // a typo in the URL would otherwise only show up as "cache errors" at run time
  static String redisUrl(String url) {
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

  public PgConnectOptions pgConnectOptions() {
    PgConnectOptions options = new PgConnectOptions().setHost(pgHost).setPort(pgPort).setDatabase(pgDatabase)
        .setUser(pgUser).setCachePreparedStatements(true);
    if (pgPassword != null) {
      options.setPassword(pgPassword);
    }
    return options;
  }

  public int pgConnectTimeoutMs() {
    return PG_CONNECT_TIMEOUT_MS;
  }

  public RedisOptions redisOptions() {
    RedisOptions options = new RedisOptions().setConnectionString(redisUrl)
        .setMaxPoolSize(REDIS_POOL_SIZE).setMaxPoolWaiting(1024).setMaxWaitingHandlers(4096);
    options.getNetClientOptions().setConnectTimeout((int) Math.max(redisTimeout.toMillis(), 100));
    if (redisPassword != null) {
      options.setPassword(redisPassword);
    }
    return options;
  }

  /** Never print the passwords (the record's default toString would). */
  @Override
  public String toString() {
    return "SocialGraphConfig[http=" + httpHost + ":" + httpPort + ", pg=" + pgUser + "@" + pgHost + ":" + pgPort
        + "/" + pgDatabase + " pool=" + pgPoolSize + ", redis=" + redisUrl.replaceAll("//[^@/]*@", "//***@")
        + " ttl=" + redisTtl + " timeout=" + redisTimeout + "]";
  }
}
