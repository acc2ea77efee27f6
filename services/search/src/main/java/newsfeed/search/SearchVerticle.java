package newsfeed.search;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.kafka.admin.KafkaAdminClient;
import io.vertx.kafka.client.consumer.KafkaConsumer;
import newsfeed.common.kafka.ConsumerMetrics;
import newsfeed.common.kafka.KafkaBatchConsumer;
import newsfeed.common.kafka.KafkaGroupMonitor;
import newsfeed.common.http.HttpBootstrap;
import newsfeed.common.http.InvalidRequests;
import newsfeed.common.http.HttpBootstrap.Check;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The search service: the `newsfeed-search` consumer that indexes posts into Solr, and the keyword search API. */
public final class SearchVerticle extends VerticleBase {
  private final SearchConfig config;
  private final PrometheusMeterRegistry registry;
  private WebClient web;
  private KafkaBatchConsumer consumer;
  private KafkaGroupMonitor monitor;
  private HttpServer server;

  public SearchVerticle(SearchConfig config, PrometheusMeterRegistry registry) {
    this.config = config;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    web = WebClient.create(vertx, new WebClientOptions().setKeepAlive(true)
        .setConnectTimeout(2_000).setUserAgent("newsfeed-search"), new PoolOptions().setHttp1MaxSize(32));
    SolrIndex index = new SolrIndex(web, config.solrUrl(), config.solrCollection(), registry);

    ConsumerMetrics consumerMetrics = new ConsumerMetrics(registry, config.kafkaGroupId());
    consumer = new KafkaBatchConsumer(vertx, KafkaConsumer.create(vertx, kafkaConsumerConfig()),
        config.kafkaTopic(), new IndexProcessor(index, registry), consumerMetrics);
    monitor = new KafkaGroupMonitor(vertx, KafkaAdminClient.create(vertx, kafkaAdminConfig()),
        config.kafkaGroupId(), consumerMetrics, consumer::assignment);

    Router router = HttpBootstrap.router(vertx, registry, List.of(
        new Check("solr", index::ping),
        new Check("kafka", () -> monitor.checkBroker(2_000)),
        new Check("consumer", () -> {
          String reason = consumer.unhealthyReason();
          return reason == null ? Future.succeededFuture() : Future.failedFuture(reason);
        })));
    router.get("/outbound").handler(new SearchHandler(index, registry)::get);

    server = vertx.createHttpServer(new HttpServerOptions().setHost(config.httpHost()).setPort(config.httpPort()));
    return server.requestHandler(router).invalidRequestHandler(InvalidRequests::handle).listen()
        .compose(s -> consumer.start())
        .onSuccess(v -> monitor.start());
  }

  /** Stop taking requests and drain them, let the consumer finish and commit its batch, then close clients. */
  @Override
  public Future<?> stop() {
    return server.shutdown(config.shutdownGrace().toMillis(), TimeUnit.MILLISECONDS)
        .transform(ar -> consumer.stop(config.shutdownGrace()))
        .transform(ar -> monitor.stop())
        .transform(ar -> {
          web.close();
          return Future.succeededFuture();
        });
  }

  private Map<String, String> kafkaConsumerConfig() {
    Map<String, String> c = new HashMap<>();
    c.put("bootstrap.servers", config.kafkaBootstrapServers());
    c.put("group.id", config.kafkaGroupId());
    c.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    c.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    c.put("enable.auto.commit", "false");          // offsets are committed only after Solr accepted the batch
    c.put("auto.offset.reset", "earliest");        // a new group must not skip posts made before it started
    c.put("max.poll.records", "500");              // one Solr update request per batch
    c.put("client.id", "newsfeed-search-" + ProcessHandle.current().pid());
    return c;
  }

  private Map<String, String> kafkaAdminConfig() {
    Map<String, String> c = new HashMap<>();
    c.put("bootstrap.servers", config.kafkaBootstrapServers());
    c.put("request.timeout.ms", "5000");
    c.put("default.api.timeout.ms", "10000");
    return c;
  }
}
