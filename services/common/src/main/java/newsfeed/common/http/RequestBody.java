package newsfeed.common.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.util.Locale;

/**
 * The fields of a create request, by its Content-Type: JSON (`application/json`, `application/*+json`, or no
 * Content-Type at all) or a form (`application/x-www-form-urlencoded`, the classic clients' default), both as a
 * JSON object for the same validators. Any other declared type is a 415 and nothing is read. The body must have
 * been read by {@link RawBody}.
 */
public final class RequestBody {
  static final String FORM = "application/x-www-form-urlencoded";

  private RequestBody() {
  }

  /** @throws ApiError 415 for another media type, 400 for a body that is not what its type says. */
  public static JsonObject fields(RoutingContext ctx) {
    String type = mediaType(ctx.request().getHeader("Content-Type"));
    if (type == null || isJson(type)) {
      return JsonBody.object(ctx);
    }
    if (type.equals(FORM)) {
      Buffer body = RawBody.of(ctx);
      // curl labels every -d body a form: a body that is a JSON object cannot be a form of our fields
      return startsWithBrace(body) ? JsonBody.object(ctx) : FormBody.parse(body);
    }
    throw new ApiError(415, "unsupported_media_type",
        "Content-Type must be application/json or " + FORM + ", not " + type);
  }

  /** The type/subtype of a Content-Type value, lower case, without parameters; null when there is none. */
  static String mediaType(String header) {
    if (header == null) {
      return null;
    }
    int semicolon = header.indexOf(';');
    String type = (semicolon < 0 ? header : header.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    return type.isEmpty() ? null : type;
  }

  private static boolean isJson(String type) {
    return type.equals("application/json") || (type.startsWith("application/") && type.endsWith("+json"));
  }

  private static boolean startsWithBrace(Buffer body) {
    for (int i = 0; i < body.length(); i++) {
      byte b = body.getByte(i);
      if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
        return b == '{';
      }
    }
    return false;
  }
}
