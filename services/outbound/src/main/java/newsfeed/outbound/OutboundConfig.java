package newsfeed.outbound;

import newsfeed.common.auth.AuthConfig;
import newsfeed.common.config.Env;
import newsfeed.common.http.LoadShedding;
import newsfeed.common.cassandra.CassandraConfig;
import newsfeed.common.kafka.KafkaSecurity;

import java.time.Duration;
import java.util.Map;

/** Everything outbound reads from its environment (docs/contracts.md), parsed once at start. */
public record OutboundConfig(String httpHost, int httpPort, Duration shutdownGrace, int maxInFlight, int maxBodyBytes,
                             CassandraConfig cassandra, String kafkaBootstrapServers, KafkaSecurity kafkaSecurity,
                             String kafkaTopic, String socialGraphUrl, Duration reconcileAfter, AuthConfig auth) {

  public static OutboundConfig fromEnv(Map<String, String> env) {
    Env e = new Env(env);
    return new OutboundConfig(
        e.string("HTTP_HOST", "0.0.0.0"),
        e.integer("HTTP_PORT", 8080, 1, 65535),
        Duration.ofSeconds(e.integer("SHUTDOWN_GRACE_SECONDS", 20, 0, 3600)),
        LoadShedding.maxInFlight(e),
        // a post of the longest subject and story must fit, even with every character escaped
        e.integer("HTTP_MAX_BODY_BYTES", 65536, 1024, 16 * 1024 * 1024),
        CassandraConfig.fromEnv(e),
        e.string("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"),
        KafkaSecurity.fromEnv(e),
        e.string("KAFKA_TOPIC", "outbound-posted"),
        e.string("SOCIAL_GRAPH_URL", "http://localhost:8080"),
        // longer than any request lives (a publish's worst case and the cancellation after it)
        Duration.ofSeconds(e.integer("OUTBOUND_RECONCILE_AFTER_SECONDS", 60, 30, 86400)),
        AuthConfig.fromEnv(e));
  }
}
