package newsfeed.search;

import newsfeed.common.config.Env;
import newsfeed.common.kafka.ConsumerTuning;

import java.time.Duration;
import java.util.Map;

/** Everything search reads from its environment (docs/contracts.md), parsed once at start. */
public record SearchConfig(String httpHost, int httpPort, Duration shutdownGrace, String kafkaBootstrapServers,
                           String kafkaTopic, String kafkaGroupId, ConsumerTuning kafkaConsumer, String solrUrl,
                           String solrCollection) {

  public static SearchConfig fromEnv(Map<String, String> env) {
    Env e = new Env(env);
    return new SearchConfig(
        e.string("HTTP_HOST", "0.0.0.0"),
        e.integer("HTTP_PORT", 8080, 1, 65535),
        Duration.ofSeconds(e.integer("SHUTDOWN_GRACE_SECONDS", 20, 0, 3600)),
        e.string("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"),
        e.string("KAFKA_TOPIC", "outbound-posted"),
        e.string("KAFKA_GROUP_ID", "newsfeed-search"),
        ConsumerTuning.fromEnv(e),
        e.string("SOLR_URL", "http://localhost:8983/solr"),
        e.string("SOLR_COLLECTION", "outbound"));
  }
}
