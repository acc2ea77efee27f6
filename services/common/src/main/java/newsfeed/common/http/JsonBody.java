package newsfeed.common.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.json.jackson.JacksonCodec;
import io.vertx.ext.web.RoutingContext;
import newsfeed.common.model.Links;
import newsfeed.common.model.Occurred;
import newsfeed.common.model.Text;

import java.io.IOException;

/**
 * Validation of POST bodies: a JSON object with typed fields, else an {@link ApiError} 400 naming the field. The
 * body must have been read by {@link RawBody} (whose limit, HTTP_MAX_BODY_BYTES, answers 413 before we get here).
 * {@link RequestBody} picks JSON or form by Content-Type; a form arrives here as an object of strings.
 */
public final class JsonBody {
  private static final JsonFactory STRICT =
      JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private JsonBody() {
  }

  /** The body as a JSON object: 400 invalid_json when it is empty, not UTF-8, not JSON, or not an object. */
  public static JsonObject object(RoutingContext ctx) {
    Buffer body = RawBody.of(ctx);
    Utf8Body.require(body);
    return parseObject(body.toString());
  }

  /**
   * A JSON object's text as an object: 400 invalid_json when it is blank, not JSON, not an object, or names a
   * member twice (which a parser would settle silently by keeping one; a form's field given twice is a 400 too).
   * One parse that refuses a name seen before in the same object; only a refused text is parsed again, to say why.
   */
  static JsonObject parseObject(String text) {
    if (text.isBlank()) {
      throw notAnObject();
    }
    Object parsed;
    try {
      parsed = JacksonCodec.fromParser(STRICT.createParser(text), Object.class);
    } catch (DecodeException | IOException e) {
      throw refused(text, e);
    }
    if (!(parsed instanceof JsonObject object)) {
      throw notAnObject();
    }
    return object;
  }

  /** Why the strict parse refused the text: not JSON, not an object, or else a member named twice. */
  private static ApiError refused(String text, Exception strict) {
    try {
      if (!(io.vertx.core.json.Json.decodeValue(text) instanceof JsonObject)) {
        return notAnObject();
      }
    } catch (DecodeException e) {
      return new ApiError(400, "invalid_json", "request body is not valid JSON");
    }
    String name = strict.getCause() instanceof JsonParseException p ? nameAt(p.getProcessor()) : null;
    return new ApiError(400, "invalid_json", "request body names "
        + (name == null ? "a member" : "member " + name) + " more than once");
  }

  private static ApiError notAnObject() {
    return new ApiError(400, "invalid_json", "request body must be a JSON object");
  }

  private static String nameAt(JsonParser parser) {
    try {
      return parser == null ? null : parser.currentName();
    } catch (IOException e) {
      return null;
    }
  }

  /** A required string of 1..maxLength characters, one of them no white space ({@link Text}). */
  public static String requiredString(JsonObject body, String field, int maxLength) {
    String s = optionalString(body, field, maxLength);
    if (s == null || Text.isBlank(s)) {
      throw new ApiError(400, "missing_field", field + " is required");
    }
    return s;
  }

  /** An optional string of at most maxLength characters; null when absent. */
  public static String optionalString(JsonObject body, String field, int maxLength) {
    Object v = body.getValue(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof String s)) {
      throw new ApiError(400, "invalid_field", field + " must be a string");
    }
    if (s.length() > maxLength) {
      throw new ApiError(400, "invalid_field", field + " must be at most " + maxLength + " characters");
    }
    if (hasLoneSurrogate(s)) {
      // half of a surrogate pair is no character: the stores would keep '?' and a post no longer match its retry
      throw new ApiError(400, "invalid_field",
          field + " holds half of a UTF-16 surrogate pair, which is not a character");
    }
    return s;
  }

  private static boolean hasLoneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  /** A participant link ("/participant/42", or a bare positive id) in a field; null when absent. */
  public static Long optionalParticipant(JsonObject body, String field) {
    Object v = body.getValue(field);
    if (v == null) {
      return null;
    }
    try {
      return Links.participantId(v);
    } catch (IllegalStateException e) {
      throw new ApiError(400, "invalid_field", field + " must be a participant link like /participant/42");
    }
  }

  public static long requiredParticipant(JsonObject body, String field) {
    Long id = optionalParticipant(body, field);
    if (id == null) {
      throw new ApiError(400, "missing_field", field + " is required");
    }
    return id;
  }

  /** An optional `occurred` ({@link Occurred}: a day or an RFC 3339 date-time), verbatim; null when absent. */
  public static String optionalOccurred(JsonObject body, String field) {
    Object v = body.getValue(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof String s) || !Occurred.isValid(s)) {
      throw new ApiError(400, "invalid_field",
          field + " must be a date (yyyy-MM-dd) or an RFC 3339 date-time (2026-11-22T15:30:00Z)");
    }
    return s;
  }
}
