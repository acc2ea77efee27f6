package newsfeed.search;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.http.FailureHandler;
import newsfeed.common.http.HttpBootstrap;
import newsfeed.common.kafka.ConsumingServer;
import newsfeed.common.kafka.EventConsumer;
import newsfeed.common.http.HttpBootstrap.Check;

import java.util.List;

/** The search service: the `newsfeed-search` consumer that indexes posts into Solr, and the keyword search API. */
public final class SearchVerticle extends VerticleBase {
  private final SearchConfig config;
  private final PrometheusMeterRegistry registry;
  private WebClient web;
  private ConsumingServer server;

  public SearchVerticle(SearchConfig config, PrometheusMeterRegistry registry) {
    this.config = config;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    web = HttpBootstrap.webClient(vertx, "newsfeed-search", 32);
    SolrIndex index = new SolrIndex(web, config.solrUrl(), config.solrCollection(), config.solrCredentials(),
        registry);

    EventConsumer consumer =
        new EventConsumer(vertx, registry, "search", config.events(), 500, new IndexProcessor(index, registry));
    server = new ConsumingServer(consumer);

    Router router = HttpBootstrap.router(vertx, registry, config.maxInFlight(), List.of(new Check("solr", index::ping)),
        consumer.healthChecks());
    router.get("/outbound").handler(new SearchHandler(index, registry)::get).failureHandler(FailureHandler::handle);

    return server.start(vertx, config.httpHost(), config.httpPort(), router);
  }

  /** Stop taking requests and drain them, let the consumer finish and commit its batch, then close clients. */
  @Override
  public Future<?> stop() {
    return server.stop(config.shutdownGrace()).transform(ar -> HttpBootstrap.close(web));
  }
}
