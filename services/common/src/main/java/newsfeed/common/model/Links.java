package newsfeed.common.model;

/** Participant links of the classic API: "/participant/42" <-> 42. */
public final class Links {
  private static final String PREFIX = "/participant/";

  private Links() {
  }

  public static String participant(long id) {
    return PREFIX + id;
  }

  /**
   * Parses a participant link (a bare whole positive number is accepted too); throws IllegalStateException
   * otherwise. Fractions (42.7), non-positive and out-of-range numbers are rejected, never truncated.
   */
  public static long participantId(Object link) {
    if (link instanceof Number n) {
      if ((n instanceof Integer || n instanceof Long) && n.longValue() > 0) {
        return n.longValue();
      }
      throw new IllegalStateException("not a participant link: " + link);
    }
    if (link instanceof String s) {
      String digits = s.startsWith(PREFIX) ? s.substring(PREFIX.length()) : s;
      try {
        long id = Long.parseLong(digits);
        if (id > 0) {
          return id;
        }
      } catch (NumberFormatException ignored) {
        // reported below
      }
    }
    throw new IllegalStateException("not a participant link: " + link);
  }
}
