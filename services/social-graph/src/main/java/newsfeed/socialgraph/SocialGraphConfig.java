package newsfeed.socialgraph;

import io.vertx.pgclient.PgConnectOptions;
import newsfeed.common.auth.AuthConfig;
import newsfeed.common.config.Env;
import newsfeed.common.http.LoadShedding;
import newsfeed.common.redis.RedisConfig;

import java.time.Duration;
import java.util.Map;

/** Everything social-graph reads from its environment (docs/contracts.md), parsed once at start. */
public record SocialGraphConfig(String httpHost, int httpPort, Duration shutdownGrace, int maxInFlight,
                                int httpMaxBodyBytes,
                                String pgHost, int pgPort, String pgDatabase, String pgUser, String pgPassword,
                                int pgPoolSize, RedisConfig redis, Duration redisTtl, int maxFriends,
                                AuthConfig auth) {
  private static final int PG_CONNECT_TIMEOUT_MS = 2_000;
  /**
   * Default of SOCIAL_GRAPH_MAX_FRIENDS: a participant's whole friend list still fits the classic list's one page
   * (FriendsHandler.MAX_LIMIT) and the cache (GraphCache.MAX_CACHED_FRIENDS), and a post fans out to at most this
   * many feeds (the 10,000-follower fan-out of docs/benchmarks.md stays possible).
   */
  static final int DEFAULT_MAX_FRIENDS = 10_000;

  public static SocialGraphConfig fromEnv(Map<String, String> env) {
    Env e = new Env(env);
    return new SocialGraphConfig(
        e.string("HTTP_HOST", "0.0.0.0"),
        e.integer("HTTP_PORT", 8080, 1, 65535),
        Duration.ofSeconds(e.integer("SHUTDOWN_GRACE_SECONDS", 20, 0, 3600)),
        LoadShedding.maxInFlight(e),
        e.integer("HTTP_MAX_BODY_BYTES", 65536, 256, 16 * 1024 * 1024),
        e.string("PG_HOST", "localhost"),
        e.integer("PG_PORT", 5432, 1, 65535),
        e.string("PG_DATABASE", "newsfeed"),
        e.string("PG_USER", "newsfeed"),
        e.optional("PG_PASSWORD"),
        e.integer("PG_POOL_SIZE", 16, 1, 1000),
        RedisConfig.fromEnv(e),
        Duration.ofSeconds(e.integer("REDIS_TTL_SECONDS", 300, 1, 7 * 24 * 3600)),
        e.integer("SOCIAL_GRAPH_MAX_FRIENDS", DEFAULT_MAX_FRIENDS, 0, 10_000_000),
        AuthConfig.fromEnv(e));
  }

  public PgConnectOptions pgConnectOptions() {
    PgConnectOptions options = new PgConnectOptions().setHost(pgHost).setPort(pgPort).setDatabase(pgDatabase)
        .setUser(pgUser).setCachePreparedStatements(true)
        // a COMMIT that comes this late finds its session ended and rolled back (Postgres: writes with lost answers)
        .addProperty("idle_in_transaction_session_timeout", Long.toString(Postgres.IDLE_IN_TRANSACTION_MS));
    if (pgPassword != null) {
      options.setPassword(pgPassword);
    }
    return options;
  }

  public int pgConnectTimeoutMs() {
    return PG_CONNECT_TIMEOUT_MS;
  }

  /** Never print the passwords (the record's default toString would). */
  @Override
  public String toString() {
    return "SocialGraphConfig[http=" + httpHost + ":" + httpPort + ", pg=" + pgUser + "@" + pgHost + ":" + pgPort
        + "/" + pgDatabase + " pool=" + pgPoolSize + ", redis=" + redis + " ttl=" + redisTtl + ", maxFriends="
        + (maxFriends == 0 ? "unlimited" : maxFriends) + ", auth=" + auth + "]";
  }
}
