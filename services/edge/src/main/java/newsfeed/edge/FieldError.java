package newsfeed.edge;

import io.vertx.core.json.JsonObject;
import newsfeed.common.http.ApiError;

/**
 * Why a field could not be resolved, with the HTTP meaning it carries into the GraphQL error's extensions
 * (`code`, `status`) and into the answer's status: a service's 4xx passes through, anything else is 503.
 */
final class FieldError extends RuntimeException {
  static final String UNAVAILABLE = "service_unavailable";
  private final int status;
  private final String code;

  FieldError(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  static FieldError badRequest(String message) {
    return new FieldError(400, "bad_request", message);
  }

  /** A refusal of the API's own (401, 403) as the field's error. */
  static FieldError of(ApiError e) {
    return new FieldError(e.status(), e.code(), e.getMessage());
  }

  static FieldError unavailable(String service) {
    return new FieldError(503, UNAVAILABLE, service + " is unavailable");
  }

  /** A service's JSON error answer ({"error","message","status"}); a body of another shape keeps the status. */
  static FieldError fromAnswer(String service, int status, String body) {
    String code = "http_" + status;
    String message = service + " answered " + status;
    try {
      JsonObject json = new JsonObject(body);
      code = json.getString("error", code);
      message = json.getString("message", message);
    } catch (RuntimeException ignored) {
      // not the API's error shape: the status alone says what happened
    }
    return new FieldError(status, code, message);
  }

  int status() {
    return status;
  }

  String code() {
    return code;
  }
}
