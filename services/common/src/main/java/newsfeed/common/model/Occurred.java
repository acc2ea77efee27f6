package newsfeed.common.model;

import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The `occurred` a client may give with a post: a day (`yyyy-MM-dd`, what classic clients send) or an RFC 3339
 * date-time. It is kept verbatim and shown as given; the feeds' order and cursors stay on the post's timeuuid.
 */
public final class Occurred {
  private static final Pattern DAY = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
  // RFC 3339 section 5.6: seconds required, optional fraction, Z or a numeric offset; T and Z in either case
  private static final Pattern DATE_TIME =
      Pattern.compile("\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})");

  private Occurred() {
  }

  /** Whether the text is a real day or date-time in one of the two forms (no 2026-02-30, no 25:00). */
  public static boolean isValid(String text) {
    if (text == null) {
      return false;
    }
    try {
      if (DAY.matcher(text).matches()) {
        LocalDate.parse(text);
        return true;
      }
      if (DATE_TIME.matcher(text).matches()) {
        OffsetDateTime.parse(text.toUpperCase(Locale.ROOT));
        return true;
      }
    } catch (DateTimeParseException e) {
      return false;
    }
    return false;
  }
}
