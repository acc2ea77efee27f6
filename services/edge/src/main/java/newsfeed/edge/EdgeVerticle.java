package newsfeed.edge;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.graphql.GraphQLHandler;
import newsfeed.common.auth.BearerTokens;
import newsfeed.common.http.AllowedMethods;
import newsfeed.common.http.ApiError;
import newsfeed.common.http.HttpBootstrap;

import java.util.List;

/**
 * The edge service: the classic GraphQL API on POST / and /graphql (GET /graphql?query= for queries), every
 * field resolved by the four services' REST API. It has no store, so it is ready as soon as it listens: a
 * service that is down is a 503 answer of the request that needs it, not an unready edge. With AUTH_ENABLED its
 * mutations need the caller's bearer token, checked here and passed on to the service that writes.
 */
public final class EdgeVerticle extends VerticleBase {
  private final EdgeConfig config;
  private final PrometheusMeterRegistry registry;
  private WebClient web;
  private HttpServer server;

  public EdgeVerticle(EdgeConfig config, PrometheusMeterRegistry registry) {
    this.config = config;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    web = HttpBootstrap.webClient(vertx, "newsfeed-edge", config.downstreamConnections());
    long timeout = config.downstreamTimeoutMs();
    RestApi api = new RestApi(
        new Downstream("social-graph", config.socialGraphUrls(), web, timeout, registry),
        new Downstream("outbound", config.outboundUrls(), web, timeout, registry),
        new Downstream("inbound", config.inboundUrls(), web, timeout, registry),
        new Downstream("search", config.searchUrls(), web, timeout, registry));
    GraphQLHandler graphql =
        GraphQLHandler.create(ClassicSchema.create(api, BearerTokens.create(vertx, config.auth())));
    BodyHandler body = BodyHandler.create(false).setBodyLimit(config.maxBodyBytes());   // no uploads to the FS

    Router router = HttpBootstrap.router(vertx, registry, config.maxInFlight(), List.of());
    // Vert.x wants the body handler first
    router.post("/").handler(body).handler(EdgeVerticle::requestInBody).handler(AnswerStatus::apply).handler(graphql);
    router.post("/graphql").handler(body).handler(EdgeVerticle::requestInBody).handler(AnswerStatus::apply)
        .handler(graphql);
    router.get("/graphql").handler(AnswerStatus::apply).handler(graphql);
    // a 405 (a method the path does not take) says in Allow which methods it takes
    Handler<RoutingContext> failures = AllowedMethods.onNotAllowed(router, Failures::handle);
    router.route().failureHandler(failures);
    // no such path or method: a GraphQL answer too, like every other answer of edge
    router.errorHandler(404, failures).errorHandler(405, failures);

    return HttpBootstrap.serve(vertx,
        HttpBootstrap.bodyServerOptions(config.httpHost(), config.httpPort(), config.maxBodyBytes()), router)
        .onSuccess(s -> server = s);
  }

  /**
   * A POST carries its GraphQL request in its body: Vert.x's handler would take a `?query=` in the URL first,
   * whatever the body and its Content-Type, and so run a mutation any web page can send as a plain form.
   */
  private static void requestInBody(RoutingContext ctx) {
    MultiMap params;
    try {
      params = ctx.queryParams();
    } catch (IllegalArgumentException malformed) {   // a bad %-escape
      ctx.fail(new ApiError(400, "bad_request", "malformed query string"));
      return;
    }
    if (params.contains("query") || params.contains("operationName") || params.contains("variables")
        || params.contains("extensions")) {
      ctx.fail(new ApiError(400, "bad_request", "a POST carries its GraphQL request in the body, not in the URL"));
      return;
    }
    ctx.next();
  }

  /** Stop taking requests and let those in flight finish (their calls to the services included), then close. */
  @Override
  public Future<?> stop() {
    return HttpBootstrap.drain(server, config.shutdownGrace()).transform(ar -> HttpBootstrap.close(web));
  }
}
