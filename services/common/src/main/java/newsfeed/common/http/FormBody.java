package newsfeed.common.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;

/**
 * An `application/x-www-form-urlencoded` body (`name=a+b&to=%2Fparticipant%2F7`, what classic clients send by
 * default) as a JSON object of strings, so the JSON validators apply unchanged. Strict where a lenient decoder
 * would store something else than was sent: a bad %-escape, bytes that are not UTF-8 or a name given twice is a
 * 400, never a replacement character or a silently chosen value.
 */
public final class FormBody {
  private FormBody() {
  }

  public static JsonObject parse(Buffer body) {
    JsonObject fields = new JsonObject();
    String text = body == null ? "" : body.toString(StandardCharsets.ISO_8859_1);   // bytes 1:1; decoded below
    for (String pair : text.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = decode(eq < 0 ? "" : pair.substring(eq + 1));
      if (fields.containsKey(name)) {
        throw new ApiError(400, "invalid_form", "form field " + name + " is given more than once");
      }
      fields.put(name, value);
    }
    return fields;
  }

  /** '+' is a space, %XX a byte ({@link PercentEncoded}); the bytes must be UTF-8. */
  private static String decode(String part) {
    byte[] bytes = PercentEncoded.bytes(part);
    if (bytes == null) {
      throw new ApiError(400, "invalid_form", "form body has a malformed %-escape");
    }
    String text = Utf8Body.text(bytes);
    if (text == null) {
      throw new ApiError(400, "invalid_form", "form body is not valid UTF-8");
    }
    return text;
  }
}
