package newsfeed.socialgraph;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.NetClientOptions;
import io.vertx.ext.web.Router;
import io.vertx.pgclient.PgBuilder;
import newsfeed.common.auth.WriteAuth;
import newsfeed.common.redis.RedisStore;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import newsfeed.common.http.FailureHandler;
import newsfeed.common.http.HttpBootstrap;
import newsfeed.common.http.HttpBootstrap.Check;
import newsfeed.common.http.RawBody;
import newsfeed.socialgraph.FriendsRepository.Befriending;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The social-graph service: participants and friendships in PostgreSQL behind a Redis cache-aside.
 *
 * <p>Readiness checks PostgreSQL only: Redis is an optimisation the service works without (it then reads from
 * PostgreSQL and counts newsfeed_cache_errors_total), so a Redis outage must not take the pods out of the
 * Service's endpoints.
 */
public final class SocialGraphVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(SocialGraphVerticle.class);
  private static final int PG_WAIT_QUEUE = 2_048;
  private static final int PG_ACQUIRE_TIMEOUT_S = 5;
  /** How often Idempotency-Keys past their 24 hours are deleted (by every instance: a delete of nothing is cheap). */
  private static final long KEY_PURGE_EVERY_MS = 3_600_000;

  private final SocialGraphConfig config;
  private final PrometheusMeterRegistry registry;
  private Pool pool;
  private RedisStore redis;
  private GraphCache cache;
  private Cancellations<Long> participantCancellations;
  private Cancellations<Befriending> friendshipCancellations;
  private HttpServer server;
  private long keyPurge;

  public SocialGraphVerticle(SocialGraphConfig config, PrometheusMeterRegistry registry) {
    this.config = config;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    LOG.info("starting with {}", config);
    pool = PgBuilder.pool()
        .with(new PoolOptions().setMaxSize(config.pgPoolSize()).setMaxWaitQueueSize(PG_WAIT_QUEUE)
            .setConnectionTimeout(PG_ACQUIRE_TIMEOUT_S).setConnectionTimeoutUnit(TimeUnit.SECONDS))
        .with(new NetClientOptions().setConnectTimeout(config.pgConnectTimeoutMs()))
        .connectingTo(config.pgConnectOptions())
        .using(vertx)
        .build();
    redis = RedisStore.create(vertx, config.redis(), registry);
    cache = new GraphCache(vertx, redis, config.redisTtl(), registry);
    Postgres pg = new Postgres(vertx, pool, registry);
    ParticipantRepository participantRows = new ParticipantRepository(pg);
    FriendsRepository friendRows = new FriendsRepository(pg, config.maxFriends());
    participantCancellations = new Cancellations<>(vertx, "participant", participantRows::cancel, id -> {
      cache.forgetParticipant(id);
      cache.invalidateFriends(id);   // its empty friend list
    }, new CancellationBacklog<>(redis, "participant", String::valueOf, Long::valueOf), registry);
    friendshipCancellations = new Cancellations<>(vertx, "friendship", friendRows::cancel,
        write -> cache.invalidateFriends(write.from(), write.to()),
        new CancellationBacklog<>(redis, "friendship", Befriending::encode, Befriending::decode), registry);
    SocialGraph graph =
        new SocialGraph(participantRows, friendRows, cache, participantCancellations, friendshipCancellations);
    keyPurge = vertx.setPeriodic(KEY_PURGE_EVERY_MS, t -> participantRows.purgeKeys()
        .onSuccess(n -> LOG.info("forgot {} Idempotency-Keys older than 24 hours", n))
        .onFailure(
            err -> LOG.warn("could not forget old Idempotency-Keys, trying again in an hour: {}", err.toString())));
    ParticipantHandler participants = new ParticipantHandler(graph, registry);
    FriendsHandler friends = new FriendsHandler(graph, registry);

    Router router =
        HttpBootstrap.router(vertx, registry, config.maxInFlight(), List.of(new Check("postgresql", pg::ping)));
    RawBody body = RawBody.limit(config.httpMaxBodyBytes());
    // writes need a bearer token when AUTH_ENABLED (after the body: it is read before any async step)
    WriteAuth auth = WriteAuth.create(vertx, config.auth());
    router.post("/participant").handler(body).handler(auth.anyCaller()).handler(participants::create)
        .failureHandler(FailureHandler::handle);
    router.get("/participant/:id").handler(participants::get).failureHandler(FailureHandler::handle);
    router.post("/participant/:id/friends").handler(body).handler(auth.asParticipant("id")).handler(friends::create)
        .failureHandler(FailureHandler::handle);
    router.get("/participant/:id/friends").handler(friends::list).failureHandler(FailureHandler::handle);

    return HttpBootstrap.serve(vertx,
        HttpBootstrap.bodyServerOptions(config.httpHost(), config.httpPort(), config.httpMaxBodyBytes()), router)
        .onSuccess(s -> server = s);
  }

  /** Stop taking requests and let the in-flight ones finish, then close the pools. */
  @Override
  public Future<?> stop() {
    return HttpBootstrap.drain(server, config.shutdownGrace())
        .transform(ar -> {
          vertx.cancelTimer(keyPurge);
          // handed over through Redis, so Redis closes after them
          return Future.join(participantCancellations.close(), friendshipCancellations.close());
        })
        .transform(ar -> {
          cache.close();
          return redis.close();
        })
        .transform(ar -> pool.close());
  }
}
