package newsfeed.inbound;

import newsfeed.common.http.ParticipantClient;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.redis.RedisStore;
import newsfeed.common.http.FailureHandler;
import newsfeed.common.http.HttpBootstrap;
import newsfeed.common.kafka.ConsumingServer;
import newsfeed.common.kafka.EventConsumer;
import newsfeed.common.http.HttpBootstrap.Check;

import java.util.List;

/**
 * The inbound service: the `newsfeed-inbound` consumer that fans posts out into friends' feeds, and the HTTP
 * API that reads those feeds, their first pages cached in Redis. Readiness checks Cassandra only: the cache is an
 * optimisation the service works without.
 */
public final class InboundVerticle extends VerticleBase {
  private final InboundConfig config;
  private final PrometheusMeterRegistry registry;
  private CassandraClient cassandra;
  private WebClient web;
  private RedisStore redis;
  private FeedCache cache;
  private ConsumingServer server;

  public InboundVerticle(InboundConfig config, PrometheusMeterRegistry registry) {
    this.config = config;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    cassandra = CassandraClient.create(vertx, config.cassandra().clientOptions(vertx));
    web = HttpBootstrap.webClient(vertx, "newsfeed-inbound", 32);
    InboundRepository repository = new InboundRepository(cassandra, registry);
    if (config.cacheTtl().isZero()) {
      cache = FeedCache.off();
    } else {
      redis = RedisStore.create(vertx, config.redis(), registry);
      // half the Redis pool for the fan-out's transactions, the other half for the readers
      cache = FeedCache.create(vertx, redis, config.cacheTtl(), config.redis().poolSize() / 2, registry);
    }
    FriendsClient friends = new FriendsClient(web, config.socialGraphUrl(), registry);
    FanoutProcessor fanout = new FanoutProcessor(friends, repository, cache, registry,
        config.fanoutConcurrentEvents(), config.fanoutConcurrentWrites(), config.fanoutBatchRows());

    EventConsumer consumer = new EventConsumer(vertx, registry, "inbound", config.events(), 100, fanout);
    server = new ConsumingServer(consumer);

    InboundHandler inbound = new InboundHandler(repository, cache, new ParticipantClient(web, config.socialGraphUrl()),
        registry);
    Router router =
        HttpBootstrap.router(vertx, registry, config.maxInFlight(), List.of(new Check("cassandra", repository::ping)),
            consumer.healthChecks());
    router.get("/participant/:id/inbound").handler(inbound::get).failureHandler(FailureHandler::handle);

    return server.start(vertx, config.httpHost(), config.httpPort(), router);
  }

  /** Stop taking requests and drain them, let the consumer finish and commit its batch, then close the stores. */
  @Override
  public Future<?> stop() {
    return server.stop(config.shutdownGrace())
        .transform(ar -> {
          cache.close();
          return redis == null ? Future.succeededFuture() : redis.close();
        })
        .transform(ar -> cassandra.close())
        .transform(ar -> HttpBootstrap.close(web));
  }
}
