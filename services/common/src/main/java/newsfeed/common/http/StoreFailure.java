package newsfeed.common.http;

import io.vertx.core.Future;

import java.util.function.Function;

/**
 * A store (or a broker) failed us: {@link FailureHandler} answers 503
 * {"error":"store_unavailable","message":"<store> is unavailable","status":503} and logs it, rate-limited.
 * A bug on the way to a store stays a bug (500, logged with its stack trace).
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

  /**
   * An {@link ApiError}, a StoreFailure or a {@link #bug} as it is (a bug is a 500, not a reason to retry); any
   * other failure as a failure of the named store.
   */
  public static Throwable wrap(Throwable err, String store) {
    return err instanceof ApiError || err instanceof StoreFailure || bug(err) ? err : new StoreFailure(store, err);
  }

  /**
   * A failure no store client raises for a store that is down, slow or refusing: the program's own mistake (a null,
   * a wrong cast or index, an argument a client or codec refuses) or the JVM's error.
   */
  static boolean bug(Throwable err) {
    return err instanceof NullPointerException || err instanceof ClassCastException
        || err instanceof IndexOutOfBoundsException || err instanceof ArithmeticException
        || err instanceof IllegalArgumentException || err instanceof UnsupportedOperationException
        || err instanceof Error;
  }

  public String store() {
    return store;
  }
}
