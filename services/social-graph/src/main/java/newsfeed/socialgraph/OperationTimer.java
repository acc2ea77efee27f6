package newsfeed.socialgraph;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import newsfeed.common.http.ApiError;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * newsfeed_operation_seconds{entity,operation,outcome}: one API operation including cache and store calls.
 * The outcome is "error" only when a store failed us; an answered 404 is a successful operation.
 */
final class OperationTimer {
  private final Timer success;
  private final Timer error;

  OperationTimer(MeterRegistry registry, String entity, String operation) {
    this.success = timer(registry, entity, operation, "success");
    this.error = timer(registry, entity, operation, "error");
  }

  private static Timer timer(MeterRegistry registry, String entity, String operation, String outcome) {
    return Timer.builder("newsfeed.operation")
        .tag("entity", entity).tag("operation", operation).tag("outcome", outcome)
        .register(registry);
  }

  <T> Future<T> time(Supplier<Future<T>> operation) {
    long start = System.nanoTime();
    Future<T> f;
    try {
      f = operation.get();
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    return f.andThen(ar -> (ar.succeeded() || ar.cause() instanceof ApiError ? success : error)
        .record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
  }
}
