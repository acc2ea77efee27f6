package newsfeed.socialgraph;

import newsfeed.common.http.ApiError;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** The opaque `cursor` of friend pages (X-Next-Cursor): the last friend id of the previous page. */
public final class FriendsCursor {
  private static final String PREFIX = "f:";

  private FriendsCursor() {
  }

  public static String encode(long lastFriendId) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString((PREFIX + lastFriendId).getBytes(StandardCharsets.US_ASCII));
  }

  /** The friend id after which the page starts; 0 (from the start) for no cursor; 400 for a foreign value. */
  public static long decode(String cursor) {
    if (cursor == null || cursor.isEmpty()) {
      return 0;
    }
    try {
      String s = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.US_ASCII);
      if (s.startsWith(PREFIX)) {
        long id = Long.parseLong(s.substring(PREFIX.length()));
        if (id > 0) {
          return id;
        }
      }
    } catch (IllegalArgumentException ignored) {
      // NumberFormatException included; reported below
    }
    throw new ApiError(400, "invalid_cursor", "cursor must be a value of a previous X-Next-Cursor header");
  }
}
