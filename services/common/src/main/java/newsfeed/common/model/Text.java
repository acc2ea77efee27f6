package newsfeed.common.model;

/**
 * White space as the API's contract counts it: docs/openapi.yaml says a required text holds a non-space character
 * (`pattern: '\S'`), and JSON Schema's patterns are ECMAScript's, whose `\s` takes every Unicode space separator and
 * the BOM but no other control character. Java's own (String.isBlank, regex `\s`) differ both ways.
 */
public final class Text {
  private Text() {
  }

  public static boolean isSpace(char c) {
    return c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r' || c == '\u2028' || c == '\u2029'
        || c == '\uFEFF' || Character.getType(c) == Character.SPACE_SEPARATOR;
  }

  /** No character but white space (an empty text too). */
  public static boolean isBlank(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (!isSpace(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }
}
