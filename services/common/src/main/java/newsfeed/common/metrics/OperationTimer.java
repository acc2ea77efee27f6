package newsfeed.common.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import newsfeed.common.http.ApiError;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * newsfeed_operation_seconds{entity,operation,outcome}: one operation of a service, including its cache and store
 * calls (an API request's work, the fan-out or indexing of an event). The outcome is "error" when the operation
 * failed on our side (a store failed us, a bug); an answer to the client's own mistake, an {@link ApiError} below
 * 500 such as an unknown participant's 404, is a successful operation.
 */
public final class OperationTimer {
  private final Timer success;
  private final Timer error;

  public OperationTimer(MeterRegistry registry, String entity, String operation) {
    this.success = timer(registry, entity, operation, "success");
    this.error = timer(registry, entity, operation, "error");
  }

  private static Timer timer(MeterRegistry registry, String entity, String operation, String outcome) {
    return Timer.builder("newsfeed.operation")
        .tag("entity", entity).tag("operation", operation).tag("outcome", outcome)
        .register(registry);
  }

  /** Runs the operation (a throw counts as its failure) and records its duration under its outcome. */
  public <T> Future<T> time(Supplier<Future<T>> operation) {
    long start = System.nanoTime();
    Future<T> f;
    try {
      f = operation.get();
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    return f.andThen(ar -> (succeeded(ar.succeeded(), ar.cause()) ? success : error)
        .record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
  }

  static boolean succeeded(boolean succeeded, Throwable cause) {
    return succeeded || cause instanceof ApiError e && e.status() < 500;
  }
}
