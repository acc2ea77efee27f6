package newsfeed.socialgraph;

/**
 * What cancelling a write answered 503 found: it deleted what the write stored; the write stored nothing (or what it
 * stored is now another request's answer); a retry with the same Idempotency-Key was answered with it, so it stays;
 * it was put to use (a participant befriended) before the cancellation, so it stays.
 */
public enum Cancelled {
  DELETED, NOT_STORED, RETRIED, KEPT
}
