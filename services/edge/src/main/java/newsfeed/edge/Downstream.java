package newsfeed.edge;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.metrics.StoreTimers;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * One newsfeed service's REST API as edge calls it: a 200's JSON body, or a {@link FieldError} (its 4xx
 * passed on; a 5xx, a refused connection or no answer within the timeout is 503). Each call is timed as
 * newsfeed_store_client_seconds{store=<service>,operation=get|post}.
 *
 * <p>Every call has one deadline, {@code timeoutMs} from its start, whatever it waits on: a free connection in
 * the pool, the connection, the answer. The client's own timeout alone fires only after that long without a
 * byte, so a service that answers a byte at a time (or a queue for connections) could hold a call far longer.
 * (Such a connection stays busy until the service ends its answer or falls silent for {@code timeoutMs}.)
 */
final class Downstream {
  private final String service;
  private final String baseUrl;
  private final WebClient web;
  private final long timeoutMs;
  private final Map<String, Timer[]> timers;

  Downstream(String service, String baseUrl, WebClient web, long timeoutMs, MeterRegistry registry) {
    this.service = service;
    this.baseUrl = baseUrl;
    this.web = web;
    this.timeoutMs = timeoutMs;
    this.timers = Map.of(
        "get", new Timer[] {StoreTimers.timer(registry, service, "get", "success"),
            StoreTimers.timer(registry, service, "get", "error")},
        "post", new Timer[] {StoreTimers.timer(registry, service, "post", "success"),
            StoreTimers.timer(registry, service, "post", "error")});
  }

  /** GET of a path with query parameters (encoded here). */
  Future<Object> get(String path, Map<String, String> query) {
    HttpRequest<Buffer> request = web.getAbs(baseUrl + path).timeout(timeoutMs);
    query.forEach(request::addQueryParam);
    return call("get", request::send);
  }

  /** POST of a JSON body. */
  Future<Object> post(String path, JsonObject body) {
    return call("post", () -> web.postAbs(baseUrl + path).timeout(timeoutMs)
        .putHeader("Content-Type", "application/json").sendBuffer(body.toBuffer()));
  }

  private Future<Object> call(String operation, Supplier<Future<HttpResponse<Buffer>>> send) {
    Timer[] t = timers.get(operation);
    long start = System.nanoTime();
    Future<HttpResponse<Buffer>> sent;
    try {
      sent = send.get();
    } catch (RuntimeException e) {
      sent = Future.failedFuture(e);
    }
    return sent.timeout(timeoutMs, TimeUnit.MILLISECONDS).transform(ar -> {
      Object result = ar.succeeded() ? answer(ar.result()) : noAnswer(ar.cause());
      boolean unavailable = result instanceof FieldError e && e.status() >= 500;
      (unavailable ? t[1] : t[0]).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      return result instanceof FieldError e ? Future.failedFuture(e) : Future.succeededFuture(result);
    });
  }

  /** A call that got no answer: refused, reset, or nothing within the timeout. */
  private FieldError noAnswer(Throwable cause) {
    if (cause instanceof TimeoutException) {
      return new FieldError(503, FieldError.UNAVAILABLE,
          service + " is unavailable: no answer within " + timeoutMs + " ms");
    }
    return FieldError.unavailable(service);
  }

  /** The decoded body of a 200, else the error it means. */
  private Object answer(HttpResponse<Buffer> resp) {
    if (resp.statusCode() >= 500) {
      // the service's own reason (e.g. "kafka is unavailable") helps whoever reads the error; the code stays ours
      FieldError answered = FieldError.fromAnswer(service, resp.statusCode(), resp.bodyAsString());
      return new FieldError(503, FieldError.UNAVAILABLE, service + " is unavailable: " + answered.getMessage());
    }
    if (resp.statusCode() != 200) {
      return FieldError.fromAnswer(service, resp.statusCode(), resp.bodyAsString());
    }
    try {
      return Json.decodeValue(resp.body());
    } catch (RuntimeException e) {
      return FieldError.unavailable(service);   // a 200 that is not JSON is a broken service, not bad input
    }
  }
}
