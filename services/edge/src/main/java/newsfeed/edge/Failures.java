package newsfeed.edge;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's one failure handler: a request the GraphQL handler could not even take (a body that is not JSON,
 * no `query`, another Content-Type, a body over HTTP_MAX_BODY_BYTES) answers a GraphQL `errors` array with
 * the status in `extensions`, as JSON, never an HTML page or a stack trace.
 */
final class Failures {
  private static final Logger LOG = LoggerFactory.getLogger(Failures.class);

  private Failures() {
  }

  static void handle(RoutingContext ctx) {
    int status = ctx.statusCode() > 0 ? ctx.statusCode() : 500;
    String code;
    String message;
    switch (status) {
      case 400 -> {
        code = "bad_request";
        message = "the body must be JSON with a \"query\" string (or a GET with ?query=)";
      }
      case 405 -> {
        code = "method_not_allowed";
        message = "method not allowed on this resource";
      }
      case 413 -> {
        code = "body_too_large";
        message = "request body is too large";
      }
      case 415 -> {
        code = "unsupported_media_type";
        message = "send application/json (or application/graphql)";
      }
      default -> {
        if (status >= 500) {
          LOG.error("unhandled failure on {} {}", ctx.request().method(), ctx.request().path(), ctx.failure());
          status = 500;
          code = "internal_error";
          message = "internal error";
        } else {
          code = "http_" + status;
          message = "request failed";
        }
      }
    }
    if (ctx.response().ended()) {
      return;
    }
    JsonObject error = new JsonObject().put("message", message)
        .put("extensions", new JsonObject().put("code", code).put("status", status));
    ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json")
        .end(new JsonObject().put("errors", new JsonArray().add(error)).encode());
  }
}
