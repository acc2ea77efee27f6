package newsfeed.common.http;

import newsfeed.common.model.Links;

/** Validation of path and query parameters; bad input is an {@link ApiError} 400. */
public final class Params {
  private Params() {
  }

  /** A positive id in the API's own digits (no sign, no leading zero, ASCII only), else 400. */
  public static long participantId(String raw) {
    long id = Links.id(raw);
    if (id > 0) {
      return id;
    }
    throw new ApiError(400, "invalid_id", "participant id must be a positive integer");
  }

  public static int limit(String raw, int defaultLimit, int maxLimit) {
    if (raw == null || raw.isEmpty()) {
      return defaultLimit;
    }
    long limit = raw.length() <= 10 ? Links.id(raw) : -1;   // the same digits as an id
    if (limit >= 1 && limit <= maxLimit) {
      return (int) limit;
    }
    throw new ApiError(400, "invalid_limit", "limit must be an integer from 1 to " + maxLimit);
  }

  public static boolean bool(String raw, String name) {
    if (raw == null || raw.isEmpty()) {
      return false;
    }
    return switch (raw) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new ApiError(400, "invalid_" + name, name + " must be true or false");
    };
  }
}
