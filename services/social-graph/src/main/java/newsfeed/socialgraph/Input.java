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
    String name = JsonBody.requiredString(body, "name", MAX_NAME_LENGTH);   // half surrogate pairs refused there
    if (name.indexOf('\u0000') >= 0) {   // PostgreSQL text cannot hold NUL
      throw new ApiError(400, "invalid_field", "name contains a character that is not allowed");
    }
    return name;
  }

}
