package newsfeed.common;

/** Participant links of the classic API: "/participant/42" <-> 42. */
public final class Links {
  private static final String PREFIX = "/participant/";

  private Links() {
  }

  public static String participant(long id) {
    return PREFIX + id;
  }

  /** Parses a participant link (a bare number is accepted too); throws IllegalStateException otherwise. */
  public static long participantId(Object link) {
    if (link instanceof Number n) {
      return n.longValue();
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
