package newsfeed.common.http;

import io.vertx.core.buffer.Buffer;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * JSON bodies must be UTF-8 (RFC 8259): a body with invalid bytes is a 400, not text with replacement characters
 * silently stored. {@link JsonBody#object} checks it.
 */
public final class Utf8Body {
  private Utf8Body() {
  }

  public static void require(Buffer body) {
    if (text(body.getBytes()) == null) {
      throw new ApiError(400, "invalid_json", "request body is not valid UTF-8");
    }
  }

  /** The bytes as text; null when they are not UTF-8 (a form's values, a query string: {@link PercentEncoded}). */
  static String text(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
