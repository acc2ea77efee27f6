package newsfeed.common.http;

/**
 * The `Idempotency-Key` request header of a write that a client may retry (a post, a new participant): 1 to 255
 * printable ASCII characters (a UUID is the usual choice). Absent means a request without one.
 */
public final class IdempotencyKey {
  public static final String HEADER = "Idempotency-Key";
  static final int MAX_LENGTH = 255;

  private IdempotencyKey() {
  }

  /** The key, or null when the header is absent; @throws ApiError 400 for a key that is empty, too long or not text. */
  public static String parse(String header) {
    if (header == null) {
      return null;
    }
    if (header.isBlank() || header.length() > MAX_LENGTH || !header.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
      throw new ApiError(400, "invalid_header",
          HEADER + " must be 1 to " + MAX_LENGTH + " printable ASCII characters");
    }
    return header;
  }
}
