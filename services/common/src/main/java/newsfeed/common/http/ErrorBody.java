package newsfeed.common.http;

import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;

/** The one writer of the API's error answer {"error":"<code>","message":"<text>","status":<status>}. */
public final class ErrorBody {
  private ErrorBody() {
  }

  public static JsonObject json(int status, String code, String message) {
    return new JsonObject().put("error", code).put("message", message).put("status", status);
  }

  /** Answers the error unless the response has already been sent; completes when it is written. */
  public static Future<Void> send(HttpServerResponse response, int status, String code, String message) {
    if (response.ended()) {
      return Future.succeededFuture();
    }
    return response.setStatusCode(status).putHeader("Content-Type", "application/json")
        .end(json(status, code, message).encode());
  }

  public static Future<Void> send(HttpServerResponse response, ApiError error) {
    if (!response.ended()) {
      error.headers().forEach(response::putHeader);
    }
    return send(response, error.status(), error.code(), error.getMessage());
  }
}
