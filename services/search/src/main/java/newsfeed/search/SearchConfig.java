package newsfeed.search;

import newsfeed.common.config.Env;
import newsfeed.common.http.LoadShedding;
import newsfeed.common.kafka.EventConsumerConfig;

import java.time.Duration;
import java.util.Map;

/** Everything search reads from its environment (docs/contracts.md), parsed once at start. */
public record SearchConfig(String httpHost, int httpPort, Duration shutdownGrace, int maxInFlight,
                           EventConsumerConfig events, String solrUrl, String solrCollection,
                           SolrCredentials solrCredentials) {

  public static SearchConfig fromEnv(Map<String, String> env) {
    Env e = new Env(env);
    return new SearchConfig(
        e.string("HTTP_HOST", "0.0.0.0"),
        e.integer("HTTP_PORT", 8080, 1, 65535),
        Duration.ofSeconds(e.integer("SHUTDOWN_GRACE_SECONDS", 20, 0, 3600)),
        LoadShedding.maxInFlight(e),
        EventConsumerConfig.fromEnv(e, "newsfeed-search"),
        e.string("SOLR_URL", "http://localhost:8983/solr"),
        e.string("SOLR_COLLECTION", "outbound"),
        SolrCredentials.fromEnv(e));
  }
}
