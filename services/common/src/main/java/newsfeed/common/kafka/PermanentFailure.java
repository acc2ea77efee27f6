package newsfeed.common.kafka;

import newsfeed.common.errors.Causes;

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
    return Causes.include(err, PermanentFailure.class);
  }
}
