package newsfeed.edge;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import newsfeed.common.http.ApiError;
import newsfeed.common.http.FailureHandler;

/**
 * The router's one failure handler: a request the GraphQL handler could not even take (a body that is not JSON,
 * no `query`, another Content-Type, a body over HTTP_MAX_BODY_BYTES) answers a GraphQL `errors` array with
 * the status in `extensions`, as JSON, never an HTML page or a stack trace. An {@link ApiError} (the 503 of
 * HTTP_MAX_IN_FLIGHT's load shedding) is answered the same way, with its headers.
 */
final class Failures {
  private Failures() {
  }

  static void handle(RoutingContext ctx) {
    ApiError error = ctx.failure() instanceof ApiError api
        ? api : answer(ctx.statusCode() > 0 ? ctx.statusCode() : 500, ctx);
    if (ctx.response().ended()) {
      return;
    }
    error.headers().forEach(ctx.response()::putHeader);
    JsonObject body = new JsonObject().put("message", error.getMessage())
        .put("extensions", new JsonObject().put("code", error.code()).put("status", error.status()));
    ctx.response().setStatusCode(error.status()).putHeader("Content-Type", "application/json")
        .end(new JsonObject().put("errors", new JsonArray().add(body)).encode());
  }

  // 404, 405, 413, 417 and the logged 500 as every service answers them (FailureHandler), the rest in GraphQL's words
  private static ApiError answer(int status, RoutingContext ctx) {
    return switch (status) {
      case 400 -> new ApiError(400, "bad_request",
          "the body must be JSON with a \"query\" string (or a GET with ?query=)");
      case 404, 405, 413, 417 -> FailureHandler.forStatus(status);
      case 415 -> new ApiError(415, "unsupported_media_type", "send application/json (or application/graphql)");
      default -> status >= 500
          ? FailureHandler.unexpected(ctx) : new ApiError(status, "http_" + status, "request failed");
    };
  }
}
