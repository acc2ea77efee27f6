package newsfeed.common.http;

import java.io.ByteArrayOutputStream;

/**
 * Percent-encoded text, as a form's names and values and a query string are: {@code +} is a space, {@code %XX} a
 * byte, any other character the byte it was read as (a request line and a form body are read byte by byte).
 * {@link Utf8Body#text} then says whether the bytes are UTF-8.
 */
final class PercentEncoded {
  private PercentEncoded() {
  }

  /** The bytes the text stands for; null when an escape lacks its two hex digits or a character is beyond a byte. */
  static byte[] bytes(String encoded) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
    for (int i = 0; i < encoded.length(); i++) {
      char c = encoded.charAt(i);
      if (c == '+') {
        bytes.write(' ');
      } else if (c == '%') {
        int hi = i + 2 < encoded.length() ? Character.digit(encoded.charAt(i + 1), 16) : -1;
        int lo = hi < 0 ? -1 : Character.digit(encoded.charAt(i + 2), 16);
        if (lo < 0) {
          return null;
        }
        bytes.write(hi * 16 + lo);
        i += 2;
      } else if (c > 0xff) {
        return null;
      } else {
        bytes.write(c);
      }
    }
    return bytes.toByteArray();
  }
}
