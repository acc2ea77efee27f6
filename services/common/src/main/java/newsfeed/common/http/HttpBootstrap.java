package newsfeed.common.http;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.trace.SpanContext;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import newsfeed.common.tracing.TraceExemplars;
import newsfeed.common.tracing.Tracing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What every service router has: request metrics per route template, /health/live, /health/ready (all
 * checks must pass within 2 s), /metrics (OpenMetrics with exemplars when asked for), and JSON answers for failures
 * ({@link FailureHandler}) instead of HTML or stack traces. A service with an event path (outbound's publishing,
 * inbound's and search's consumers) also has /health/events: readiness covers only what the HTTP API needs, so a Kafka
 * outage leaves reads served. In front of the API routes, {@link LoadShedding} refuses what is beyond
 * HTTP_MAX_IN_FLIGHT with 503 {@code overloaded}; the health and metrics endpoints always answer.
 */
public final class HttpBootstrap {
  private static final long CHECK_TIMEOUT_MS = 2_000;
  private static final String OPENMETRICS = "application/openmetrics-text";
  private static final String OPENMETRICS_TYPE = OPENMETRICS + "; version=1.0.0; charset=utf-8";
  private static final String TEXT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private HttpBootstrap() {
  }

  /** A named readiness check; a failed future (or a non-null reason) means not ready. */
  public record Check(String name, Supplier<Future<Void>> probe) {
  }

  public static Router router(Vertx vertx, PrometheusMeterRegistry registry, int maxInFlight,
                              List<Check> readiness) {
    return router(vertx, registry, maxInFlight, readiness, List.of());
  }

  /**
   * {@code maxInFlight}: HTTP_MAX_IN_FLIGHT ({@link LoadShedding}, 0: no bound); {@code readiness}: the stores of the
   * HTTP API; {@code events}: the broker and consumer, at /health/events.
   */
  public static Router router(Vertx vertx, PrometheusMeterRegistry registry, int maxInFlight, List<Check> readiness,
                              List<Check> events) {
    Router router = Router.router(vertx);
    router.route().handler(ctx -> timeRequest(ctx, registry));
    router.get("/health/live").handler(ctx -> json(ctx, 200, new JsonObject().put("status", "UP")));
    router.get("/health/ready").handler(ctx -> ready(ctx, readiness));
    if (!events.isEmpty()) {
      router.get("/health/events").handler(ctx -> ready(ctx, events));
    }
    router.get("/metrics").handler(ctx -> metrics(ctx, registry));
    // after the routes above, which answer without passing on: only API (and unmatched) requests are counted
    router.route().handler(new LoadShedding(maxInFlight, registry)::handle);
    router.route().handler(QueryString::check);
    // no such route or method, a body over HTTP_MAX_BODY_BYTES (RawBody, BodyHandler), unparsable requests and
    // failures of routes without a failure handler of their own answer in JSON like the rest
    for (int status : FailureHandler.ROUTER_STATUSES) {
      router.errorHandler(status, AllowedMethods.onNotAllowed(router, FailureHandler::handle));
    }
    return router;
  }

  /**
   * Server options of a service that takes request bodies of up to {@code maxBodyBytes} (its body limit). The REST
   * services read bodies as bytes ({@link RawBody}); edge's BodyHandler runs Vert.x's form decoder over a body
   * labelled as a form (a 415 there), whose own smaller limits would answer first (a vague 400): set them beyond the
   * body limit (+ one chunk) so an oversized body always gets the 413.
   */
  public static HttpServerOptions bodyServerOptions(String host, int port, int maxBodyBytes) {
    int formLimit = 2 * maxBodyBytes + 65_536;
    return new HttpServerOptions().setHost(host).setPort(port)
        .setMaxFormAttributeSize(formLimit).setMaxFormBufferedBytes(formLimit);
  }

  /** Serves the router on a new server; a request Vert.x cannot even parse gets InvalidRequests' JSON 400. */
  public static Future<HttpServer> serve(Vertx vertx, HttpServerOptions options, Router router) {
    return vertx.createHttpServer(options).requestHandler(router).invalidRequestHandler(InvalidRequests::handle)
        .listen();
  }

  /** Stops taking requests and lets those in flight finish within {@code grace}; without a server, nothing. */
  public static Future<Void> drain(HttpServer server, Duration grace) {
    return server == null ? Future.succeededFuture() : server.shutdown(grace.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A keep-alive client of another newsfeed service: at most {@code connections}, 2 s to connect. */
  public static WebClient webClient(Vertx vertx, String userAgent, int connections) {
    return WebClient.create(vertx, new WebClientOptions().setKeepAlive(true).setConnectTimeout(2_000)
        .setUserAgent(userAgent), new PoolOptions().setHttp1MaxSize(connections));
  }

  /** Closes a client (null: none was created); a future so it chains into a verticle's stop. */
  public static Future<Void> close(WebClient client) {
    if (client != null) {
      client.close();
    }
    return Future.succeededFuture();
  }

  /**
   * The registry in the format the scraper asks for: OpenMetrics (which alone carries exemplars) when its Accept
   * header names it, as Prometheus' does; otherwise the classic text format, as before.
   */
  private static void metrics(RoutingContext ctx, PrometheusMeterRegistry registry) {
    String accept = ctx.request().getHeader("Accept");
    String type = accept != null && accept.contains(OPENMETRICS) ? OPENMETRICS_TYPE : TEXT_TYPE;
    ctx.response().putHeader("Content-Type", type).end(registry.scrape(type));
  }

  private static void timeRequest(RoutingContext ctx, MeterRegistry registry) {
    long start = System.nanoTime();
    SpanContext[] span = {SpanContext.getInvalid()};
    // before the response is sent, while its server span is still current: name it, and keep it for the exemplar
    ctx.addHeadersEndHandler(v -> {
      Tracing.nameServerSpan(ctx.request().method().name(), routeTemplate(ctx));
      span[0] = TraceExemplars.current();
    });
    // after it was sent: the span is no longer current, so the exemplar names the one kept above
    ctx.addBodyEndHandler(v -> TraceExemplars.pinned(span[0], () -> Timer.builder("newsfeed.http.server.requests")
        .tag("route", routeTemplate(ctx))
        .tag("method", ctx.request().method().name())
        .tag("status", Integer.toString(ctx.response().getStatusCode()))
        .register(registry)
        .record(System.nanoTime() - start, TimeUnit.NANOSECONDS)));
    ctx.next();
  }

  /**
   * The route template of the request ("/participant/:id"), "unmatched" when no route took it: the template, never
   * the raw path, since ids in labels would explode the series count.
   */
  static String routeTemplate(RoutingContext ctx) {
    Route route = ctx.currentRoute();
    return route == null || route.getPath() == null ? "unmatched" : route.getPath();
  }

  private static void ready(RoutingContext ctx, List<Check> checks) {
    List<Future<Void>> results = new ArrayList<>();
    for (Check c : checks) {
      Future<Void> f;
      try {
        f = c.probe().get();
      } catch (RuntimeException e) {
        f = Future.failedFuture(e);
      }
      results.add(f.timeout(CHECK_TIMEOUT_MS, TimeUnit.MILLISECONDS));
    }
    Future.join(results).onComplete(ar -> {
      Map<String, Object> status = new LinkedHashMap<>();
      boolean up = true;
      for (int i = 0; i < checks.size(); i++) {
        Future<Void> f = results.get(i);
        up &= f.succeeded();
        status.put(checks.get(i).name(), f.succeeded() ? "UP" : "DOWN: " + f.cause().getMessage());
      }
      json(ctx, up ? 200 : 503,
          new JsonObject().put("status", up ? "UP" : "DOWN").put("checks", new JsonObject(status)));
    });
  }

  private static void json(RoutingContext ctx, int status, JsonObject body) {
    if (!ctx.response().ended()) {
      ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
    }
  }
}
