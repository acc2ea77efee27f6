package newsfeed.common.kafka;

/**
 * A record that will fail the same way however often it is retried (a payload the store rejects, a malformed
 * event), as opposed to a store that is away for now. The consumer retries a permanent failure a bounded number of
 * times, then moves the record to the dead-letter topic so its partition goes on; anything else it retries forever.
 */
public class PermanentFailure extends RuntimeException {
  public PermanentFailure(String message) {
    super(message);
  }

  public PermanentFailure(String message, Throwable cause) {
    super(message, cause);
  }

  /** Whether this failure, or one of its causes, is permanent. */
  public static boolean in(Throwable err) {
    return causedBy(err, PermanentFailure.class);
  }

  /** Whether the failure or one of its causes is of the type (a store's own "invalid request" exception, say). */
  public static boolean causedBy(Throwable err, Class<? extends Throwable> type) {
    for (Throwable t = err; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
