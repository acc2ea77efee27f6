package newsfeed.common.http;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** An error answer of the API: {"error":"<code>","message":"<text>","status":<status>}, never a stack trace. */
public final class ApiError extends RuntimeException {
  private final int status;
  private final String code;

  public ApiError(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  /** API errors pass through; anything else means the named store failed us: 503. */
  public static ApiError from(Throwable err, String store) {
    if (err instanceof ApiError api) {
      return api;
    }
    return new ApiError(503, "store_unavailable", store + " is unavailable");
  }

  public int status() {
    return status;
  }

  public void send(RoutingContext ctx) {
    if (ctx.response().ended()) {
      return;
    }
    ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json")
        .end(new JsonObject().put("error", code).put("message", getMessage()).put("status", status).encode());
  }
}
