package newsfeed.common.http;

import io.vertx.core.Future;

import java.util.function.Function;

/**
 * A store (or a broker) failed us: {@link FailureHandler} answers 503
 * {"error":"store_unavailable","message":"<store> is unavailable","status":503} and logs it, rate-limited.
 */
public final class StoreFailure extends RuntimeException {
  private final String store;

  public StoreFailure(String store, Throwable cause) {
    super(store + " is unavailable", cause, false, false);
    this.store = store;
  }

  /** For {@link Future#recover}: the failure as {@link #wrap} makes it. */
  public static <T> Function<Throwable, Future<T>> as(String store) {
    return err -> Future.failedFuture(wrap(err, store));
  }

  /** An {@link ApiError} or a StoreFailure as it is; any other failure as a failure of the named store. */
  public static Throwable wrap(Throwable err, String store) {
    return err instanceof ApiError || err instanceof StoreFailure ? err : new StoreFailure(store, err);
  }

  public String store() {
    return store;
  }
}
