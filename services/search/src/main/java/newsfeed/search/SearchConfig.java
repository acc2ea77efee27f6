package newsfeed.search;

import java.time.Duration;
import java.util.Map;

/** Everything search reads from its environment (docs/contracts.md), parsed once at start. */
public record SearchConfig(String httpHost, int httpPort, Duration shutdownGrace, String kafkaBootstrapServers,
                           String kafkaTopic, String kafkaGroupId, String solrUrl, String solrCollection) {

  public static SearchConfig fromEnv(Map<String, String> env) {
    return new SearchConfig(
        string(env, "HTTP_HOST", "0.0.0.0"),
        integer(env, "HTTP_PORT", 8080, 1, 65535),
        Duration.ofSeconds(integer(env, "SHUTDOWN_GRACE_SECONDS", 20, 0, 3600)),
        string(env, "KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"),
        string(env, "KAFKA_TOPIC", "outbound-posted"),
        string(env, "KAFKA_GROUP_ID", "newsfeed-search"),
        string(env, "SOLR_URL", "http://localhost:8983/solr"),
        string(env, "SOLR_COLLECTION", "outbound"));
  }

  private static String string(Map<String, String> env, String name, String def) {
    String v = env.get(name);
    return v == null || v.isBlank() ? def : v.trim();
  }

  private static int integer(Map<String, String> env, String name, int def, int min, int max) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return def;
    }
    try {
      int i = Integer.parseInt(v.trim());
      if (i >= min && i <= max) {
        return i;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new IllegalArgumentException(name + " must be an integer from " + min + " to " + max + ", got '" + v + "'");
  }
}
