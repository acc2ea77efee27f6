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

import java.net.ConnectException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One newsfeed service's REST API as edge calls it: a 200's JSON body, or a {@link FieldError} (its 4xx
 * passed on; a 5xx, a refused connection or no answer within the timeout is 503). Each call is timed as
 * newsfeed_store_client_seconds{store=<service>,operation=get|post}.
 *
 * <p>With several base URLs (the local instances of a service) the calls go round robin, and a call whose
 * connection is refused goes to the next URL: nothing was sent, so even a POST is safe to send again.
 *
 * <p>Every call has one deadline, {@code timeoutMs} from its start, whatever it waits on: a free connection in
 * the pool, the connection, the answer. The client's own timeout alone fires only after that long without a
 * byte, so a service that answers a byte at a time (or a queue for connections) could hold a call far longer.
 * (Such a connection stays busy until the service ends its answer or falls silent for {@code timeoutMs}.)
 */
final class Downstream {
  private final String service;
  private final List<String> baseUrls;
  private final WebClient web;
  private final long timeoutMs;
  private final Map<String, Timer[]> timers;
  private final AtomicInteger next = new AtomicInteger();

  Downstream(String service, List<String> baseUrls, WebClient web, long timeoutMs, MeterRegistry registry) {
    if (baseUrls.isEmpty()) {
      throw new IllegalArgumentException(service + ": no URL");
    }
    this.service = service;
    this.baseUrls = List.copyOf(baseUrls);
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
    return call("get", base -> {
      HttpRequest<Buffer> request = web.getAbs(base + path).timeout(timeoutMs);
      query.forEach(request::addQueryParam);
      return request.send();
    });
  }

  /** POST of a JSON body, with {@code headers} (the caller's Authorization, an Idempotency-Key). */
  Future<Object> post(String path, JsonObject body, Map<String, String> headers) {
    Buffer json = body.toBuffer();
    return call("post", base -> {
      HttpRequest<Buffer> request = web.postAbs(base + path).timeout(timeoutMs)
          .putHeader("Content-Type", "application/json");
      headers.forEach(request::putHeader);
      return request.sendBuffer(json);
    });
  }

  private Future<Object> call(String operation, Function<String, Future<HttpResponse<Buffer>>> send) {
    Timer[] t = timers.get(operation);
    long start = System.nanoTime();
    int first = baseUrls.size() == 1 ? 0 : Math.floorMod(next.getAndIncrement(), baseUrls.size());
    return attempt(send, first, baseUrls.size()).timeout(timeoutMs, TimeUnit.MILLISECONDS).transform(ar -> {
      Object result = ar.succeeded() ? answer(ar.result()) : noAnswer(ar.cause());
      boolean unavailable = result instanceof FieldError e && e.status() >= 500;
      (unavailable ? t[1] : t[0]).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      return result instanceof FieldError e ? Future.failedFuture(e) : Future.succeededFuture(result);
    });
  }

  /** The call to baseUrls[i], then to the next ones while connections are refused ({@code left} URLs in all). */
  private Future<HttpResponse<Buffer>> attempt(Function<String, Future<HttpResponse<Buffer>>> send, int i, int left) {
    Future<HttpResponse<Buffer>> sent;
    try {
      sent = send.apply(baseUrls.get(i % baseUrls.size()));
    } catch (RuntimeException e) {
      sent = Future.failedFuture(e);
    }
    if (left <= 1) {
      return sent;
    }
    return sent.recover(err -> err instanceof ConnectException
        ? attempt(send, i + 1, left - 1) : Future.failedFuture(err));
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
