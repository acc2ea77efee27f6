package newsfeed.socialgraph;

import io.vertx.core.json.JsonObject;
import newsfeed.common.http.ApiError;
import newsfeed.common.http.JsonBody;

/** Validation of the social-graph request bodies beyond what {@link JsonBody} checks; bad input is a 400. */
final class Input {
  static final int MAX_NAME_LENGTH = 200;

  private Input() {
  }

  /** `name` of POST /participant: a non-blank string of at most 200 characters PostgreSQL can store as text. */
  static String participantName(JsonObject body) {
    String name = JsonBody.requiredString(body, "name", MAX_NAME_LENGTH);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      // PostgreSQL text cannot hold NUL; a lone surrogate is not a character and would be stored as '?'
      boolean loneSurrogate = Character.isHighSurrogate(c)
          ? i + 1 >= name.length() || !Character.isLowSurrogate(name.charAt(++i))
          : Character.isLowSurrogate(c);
      if (c == '\u0000' || loneSurrogate) {
        throw new ApiError(400, "invalid_field", "name contains a character that is not allowed");
      }
    }
    return name;
  }

}
