package newsfeed.outbound;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.auth.WriteAuth;
import newsfeed.common.http.FailureHandler;
import newsfeed.common.http.HttpBootstrap;
import newsfeed.common.http.ParticipantClient;
import newsfeed.common.http.RawBody;
import newsfeed.common.http.HttpBootstrap.Check;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The outbound service: the HTTP API that stores posts in Cassandra and announces them on Kafka. Both clients
 * connect lazily, so the service starts (and answers 503) while a store is still coming up.
 */
public final class OutboundVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(OutboundVerticle.class);
  /** Ids known to exist, remembered so a post asks social-graph only for a poster it has not seen (~8 MB). */
  static final int KNOWN_PARTICIPANTS = 100_000;
  private final OutboundConfig config;
  private final PrometheusMeterRegistry registry;
  private CassandraClient cassandra;
  private EventPublisher publisher;
  private Retractions retractions;
  private Reconciler reconciler;
  private PendingPosts pending;
  private WebClient web;
  private HttpServer server;

  public OutboundVerticle(OutboundConfig config, PrometheusMeterRegistry registry) {
    this.config = config;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    cassandra = CassandraClient.create(vertx, config.cassandra().clientOptions(vertx));
    OutboundRepository repository = new OutboundRepository(cassandra, registry);
    publisher = new EventPublisher(vertx, config.kafkaBootstrapServers(), config.kafkaSecurity(), config.kafkaTopic(),
        registry);
    web = HttpBootstrap.webClient(vertx, "newsfeed-outbound", 16);
    ParticipantClient participants = new ParticipantClient(web, config.socialGraphUrl(), KNOWN_PARTICIPANTS);
    retractions = new Retractions(vertx, publisher, registry);
    pending = new PendingPosts(vertx, cassandra, registry);
    reconciler = new Reconciler(vertx, pending, repository, publisher, config.reconcileAfter(), registry);
    OutboundHandler outbound = new OutboundHandler(vertx, repository, pending,
        new PostClaims(cassandra, registry), publisher, retractions, participants, registry);

    // ready without Kafka: reads need none, and a post then answers 503 itself (JSON, nothing kept)
    Router router =
        HttpBootstrap.router(vertx, registry, config.maxInFlight(), List.of(new Check("cassandra", repository::ping)),
            List.of(new Check("kafka", () -> publisher.checkBroker(2_000))));
    router.post("/participant/:id/outbound")
        .handler(RawBody.limit(config.maxBodyBytes()))
        .handler(WriteAuth.create(vertx, config.auth()).asParticipant("id"))   // a token when AUTH_ENABLED
        .handler(outbound::post)
        .failureHandler(FailureHandler::handle);
    router.get("/participant/:id/outbound").handler(outbound::get).failureHandler(FailureHandler::handle);

    return HttpBootstrap.serve(vertx,
        HttpBootstrap.bodyServerOptions(config.httpHost(), config.httpPort(), config.maxBodyBytes()), router)
        .onSuccess(s -> {
          server = s;
          reconciler.start();
        });
  }

  /** Stop taking requests and drain them, send what the producer still buffers, then close Cassandra. */
  @Override
  public Future<?> stop() {
    if (reconciler != null) {
      reconciler.stop();
    }
    return HttpBootstrap.drain(server, config.shutdownGrace())
        .andThen(ar -> {
          if (retractions != null && retractions.pending() > 0) {
            LOG.warn("stopping with {} retractions of failed posts not yet published: the reconciler will publish them",
                retractions.pending());
          }
        })
        .transform(ar -> pending == null ? Future.succeededFuture() : pending.flush())
        .transform(ar -> publisher == null ? Future.succeededFuture() : publisher.close())
        .transform(ar -> cassandra == null ? Future.succeededFuture() : cassandra.close())
        .transform(ar -> HttpBootstrap.close(web));
  }
}
