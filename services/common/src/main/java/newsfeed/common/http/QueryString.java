package newsfeed.common.http;

import io.vertx.ext.web.RoutingContext;

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
    byte[] bytes = PercentEncoded.bytes(query);
    return bytes != null && Utf8Body.text(bytes) != null;
  }
}
