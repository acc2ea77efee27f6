package newsfeed.common.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;

import java.util.function.Supplier;

/** newsfeed_store_client_seconds{store,operation,outcome}: how long one call to a store took. */
public final class StoreTimers {
  private StoreTimers() {
  }

  public static Timer timer(MeterRegistry registry, String store, String operation, String outcome) {
    return Timer.builder("newsfeed.store.client")
        .tag("store", store).tag("operation", operation).tag("outcome", outcome)
        .register(registry);
  }

  /** Runs the call and records its duration under the success or the error timer. */
  public static <T> Future<T> time(Supplier<Future<T>> call, Timer success, Timer error) {
    long start = System.nanoTime();
    Future<T> f;
    try {
      f = call.get();
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    return f.andThen(ar -> (ar.succeeded() ? success : error)
        .record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS));
  }
}
