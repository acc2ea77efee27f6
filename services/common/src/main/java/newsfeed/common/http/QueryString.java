package newsfeed.common.http;

import io.vertx.ext.web.RoutingContext;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A query string must be percent-encoded UTF-8, as the contract's parameters are: Vert.x's decoder turns bytes
 * that are not UTF-8 into U+FFFD, so {@code ?keywords=%FF} searched for a replacement character instead of being
 * refused. Checked once for every API request, before any handler reads a parameter: a 400 {@code invalid_query}.
 */
public final class QueryString {
  private QueryString() {
  }

  /** The router's handler: on when the query is well-formed, else fails the request with a 400. */
  public static void check(RoutingContext ctx) {
    String query = ctx.request().query();
    if (query != null && !wellFormed(query)) {
      ctx.fail(new ApiError(400, "invalid_query", "the query string must be percent-encoded UTF-8"));
      return;
    }
    ctx.next();
  }

  /** Every %-escape has two hex digits, and the bytes they stand for (with the plain characters) are UTF-8. */
  static boolean wellFormed(String query) {
    byte[] bytes = new byte[query.length()];
    int n = 0;
    for (int i = 0; i < query.length(); i++) {
      char c = query.charAt(i);
      if (c == '%') {
        int hi = i + 2 < query.length() ? Character.digit(query.charAt(i + 1), 16) : -1;
        int lo = hi < 0 ? -1 : Character.digit(query.charAt(i + 2), 16);
        if (lo < 0) {
          return false;
        }
        bytes[n++] = (byte) (hi * 16 + lo);
        i += 2;
      } else if (c > 0xff) {
        return false;   // the request line is read byte by byte: no character beyond one byte can be in it
      } else {
        bytes[n++] = (byte) c;
      }
    }
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, n));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
