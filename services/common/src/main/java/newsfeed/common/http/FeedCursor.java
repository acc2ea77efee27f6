package newsfeed.common.http;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.UUID;

/**
 * The opaque feed cursor of `X-Next-Cursor`: the timeuuid of the last row returned, base64url encoded.
 * Anything that does not decode to a timeuuid is rejected as bad input.
 */
public final class FeedCursor {
  private FeedCursor() {
  }

  public static String encode(UUID occurred) {
    ByteBuffer bytes = ByteBuffer.allocate(16);
    bytes.putLong(occurred.getMostSignificantBits()).putLong(occurred.getLeastSignificantBits());
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
  }

  /** @throws IllegalArgumentException if the cursor was not produced by {@link #encode}. */
  public static UUID decode(String cursor) {
    byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(cursor);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("cursor is not valid");
    }
    if (bytes.length != 16) {
      throw new IllegalArgumentException("cursor is not valid");
    }
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    UUID uuid = new UUID(buf.getLong(), buf.getLong());
    if (uuid.version() != 1 || uuid.variant() != 2) {
      throw new IllegalArgumentException("cursor is not valid");
    }
    return uuid;
  }
}
