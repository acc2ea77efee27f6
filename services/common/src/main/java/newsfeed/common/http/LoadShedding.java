package newsfeed.common.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.ext.web.RoutingContext;
import newsfeed.common.config.Env;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bound on the API requests an instance works on at once (HTTP_MAX_IN_FLIGHT). A request beyond it is answered at
 * once with 503 {@code overloaded} and {@code Retry-After: 1}, before its body is read or any store is asked: nothing
 * of it is stored, so a client may retry it safely. Without the bound an overloaded instance takes every request,
 * each waits longer than its client, and the writes of the ones given up (and their cancellations) make it slower
 * still. A request counts from its first handler until its response ends or its connection closes; /health/* and
 * /metrics are never counted or refused.
 */
public final class LoadShedding {
  /** What an instance takes by default: far above a healthy instance's few dozen, reached only when it falls behind. */
  public static final int DEFAULT_MAX_IN_FLIGHT = 512;

  private final int maxInFlight;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Counter shed;

  /** {@code maxInFlight}: the bound; 0: none (every request is taken, as without this handler). */
  public LoadShedding(int maxInFlight, MeterRegistry registry) {
    this.maxInFlight = maxInFlight;
    Gauge.builder("newsfeed.http.server.in.flight", inFlight, AtomicInteger::get)
        .description("API requests being worked on (HTTP_MAX_IN_FLIGHT bounds them)").register(registry);
    Gauge.builder("newsfeed.http.server.max.in.flight", () -> maxInFlight)
        .description("HTTP_MAX_IN_FLIGHT; 0: no bound").register(registry);
    shed = Counter.builder("newsfeed.http.server.shed")
        .description("API requests refused with 503 overloaded, before any work").register(registry);
  }

  /** HTTP_MAX_IN_FLIGHT: requests an instance works on at once; 0 turns the bound off. */
  public static int maxInFlight(Env env) {
    return env.integer("HTTP_MAX_IN_FLIGHT", DEFAULT_MAX_IN_FLIGHT, 0, 1_000_000);
  }

  /** The router's handler in front of the API routes: counts the request in, or refuses it. */
  public void handle(RoutingContext ctx) {
    if (maxInFlight > 0 && inFlight.get() >= maxInFlight) {
      shed.increment();
      // failed rather than answered here, so each router answers in its own error shape (REST JSON, GraphQL)
      ctx.fail(new ApiError(503, "overloaded", "the service has " + maxInFlight
          + " requests in flight, its limit; retry later").withHeader("Retry-After", "1"));
      return;
    }
    inFlight.incrementAndGet();
    // called once, when the response ends or the connection closes before it did
    ctx.addEndHandler(ar -> inFlight.decrementAndGet());
    ctx.next();
  }
}
