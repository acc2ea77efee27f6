package newsfeed.common.model;

import java.util.regex.Pattern;

/** Participant links of the classic API: "/participant/42" <-> 42. */
public final class Links {
  private static final String PREFIX = "/participant/";
  /** An id as the API writes it: ASCII digits, no sign, no leading zero (Long.parseLong alone takes "+42", "042"). */
  private static final Pattern ID = Pattern.compile("[1-9][0-9]{0,18}");

  private Links() {
  }

  public static String participant(long id) {
    return PREFIX + id;
  }

  /** A positive id written as the API writes it, within a long; -1 for anything else. */
  public static long id(String digits) {
    if (digits != null && ID.matcher(digits).matches()) {
      try {
        return Long.parseLong(digits);
      } catch (NumberFormatException tooLarge) {
        // 19 digits above Long.MAX_VALUE
      }
    }
    return -1;
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
      long id = id(s.startsWith(PREFIX) ? s.substring(PREFIX.length()) : s);
      if (id > 0) {
        return id;
      }
    }
    throw new IllegalStateException("not a participant link: " + link);
  }
}
