package newsfeed.common.http;

/** Validation of path and query parameters; bad input is an {@link ApiError} 400. */
public final class Params {
  private Params() {
  }

  public static long participantId(String raw) {
    try {
      long id = Long.parseLong(raw);
      if (id > 0) {
        return id;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new ApiError(400, "invalid_id", "participant id must be a positive integer");
  }

  public static int limit(String raw, int defaultLimit, int maxLimit) {
    if (raw == null || raw.isEmpty()) {
      return defaultLimit;
    }
    try {
      int limit = Integer.parseInt(raw);
      if (limit >= 1 && limit <= maxLimit) {
        return limit;
      }
    } catch (NumberFormatException ignored) {
      // reported below
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
