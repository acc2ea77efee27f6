package newsfeed.common.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
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

  /** '+' is a space, %XX a byte; the bytes must be UTF-8. */
  private static String decode(String part) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(part.length());
    for (int i = 0; i < part.length(); i++) {
      char c = part.charAt(i);
      if (c == '+') {
        bytes.write(' ');
      } else if (c == '%') {
        int hi = i + 2 < part.length() ? Character.digit(part.charAt(i + 1), 16) : -1;
        int lo = hi < 0 ? -1 : Character.digit(part.charAt(i + 2), 16);
        if (lo < 0) {
          throw new ApiError(400, "invalid_form", "form body has a malformed %-escape");
        }
        bytes.write(hi * 16 + lo);
        i += 2;
      } else {
        bytes.write(c);
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
    } catch (CharacterCodingException e) {
      throw new ApiError(400, "invalid_form", "form body is not valid UTF-8");
    }
  }
}
