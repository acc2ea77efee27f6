package newsfeed.inbound;

import newsfeed.common.config.Env;
import newsfeed.common.http.LoadShedding;
import newsfeed.common.cassandra.CassandraConfig;
import newsfeed.common.kafka.EventConsumerConfig;
import newsfeed.common.redis.RedisConfig;

import java.time.Duration;
import java.util.Map;

/** Everything inbound reads from its environment (docs/contracts.md), parsed once at start. */
public record InboundConfig(String httpHost, int httpPort, Duration shutdownGrace, int maxInFlight,
                            CassandraConfig cassandra,
                            EventConsumerConfig events, String socialGraphUrl, int fanoutConcurrentEvents,
                            int fanoutConcurrentWrites, int fanoutBatchRows, RedisConfig redis,
                            Duration cacheTtl) {

  public static InboundConfig fromEnv(Map<String, String> env) {
    Env e = new Env(env);
    return new InboundConfig(
        e.string("HTTP_HOST", "0.0.0.0"),
        e.integer("HTTP_PORT", 8080, 1, 65535),
        Duration.ofSeconds(e.integer("SHUTDOWN_GRACE_SECONDS", 20, 0, 3600)),
        LoadShedding.maxInFlight(e),
        CassandraConfig.fromEnv(e),
        EventConsumerConfig.fromEnv(e, "newsfeed-inbound"),
        e.string("SOCIAL_GRAPH_URL", "http://localhost:8080"),
        e.integer("INBOUND_FANOUT_EVENTS", 16, 1, 1024),
        e.integer("INBOUND_FANOUT_WRITES", 256, 1, 4096),
        // 10: Cassandra's default unlogged_batch_across_partitions_warn_threshold; 1 turns batching off
        e.integer("INBOUND_FANOUT_BATCH_ROWS", 10, 1, 100),
        RedisConfig.fromEnv(e),
        // 0 turns the feed cache off (no Redis connection at all)
        Duration.ofSeconds(e.integer("INBOUND_CACHE_TTL_SECONDS", 60, 0, 24 * 3600)));
  }
}
