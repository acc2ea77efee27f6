package newsfeed.common.http;

import io.vertx.ext.web.RoutingContext;
import newsfeed.common.logging.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a failed request is answered. A handler throws an {@link ApiError} while it validates (the router
 * fails the context with it), or fails the context with a failed future's cause (`.onFailure(ctx::fail)`); this
 * handler then answers in the API's JSON error shape ({@link ErrorBody}):
 * <ul>
 *   <li>an {@link ApiError}: its status, code and message;</li>
 *   <li>a {@link StoreFailure}: 503 store_unavailable naming the store, logged (rate-limited per store);</li>
 *   <li>a failure Vert.x itself raised by status (a malformed request, no such route or method, a body over the
 *   body limit, an {@code Expect} other than 100-continue): 400, 404, 405 (with {@code Allow}:
 *   {@link AllowedMethods}, on the router's error handler), 413 or 417;</li>
 *   <li>anything else: a logged 500 internal_error, never a stack trace.</li>
 * </ul>
 * {@link HttpBootstrap#router} installs it as the router's error handler, and a service's API route takes it as its
 * failure handler ({@code route.failureHandler(FailureHandler::handle)}) so the failed request is still timed under
 * the route's template. A status it does not know is left to Vert.x, as without it; a response already sent is left
 * as it is.
 */
public final class FailureHandler {
  /** The statuses the router's error handler is installed for: those the API answers in its own shape. */
  static final int[] ROUTER_STATUSES = {400, 404, 405, 413, 417, 500};

  private static final Logger LOG = LoggerFactory.getLogger(FailureHandler.class);
  private static final RateLimitedLog STORE_LOG = new RateLimitedLog(LOG, 10_000);

  private FailureHandler() {
  }

  public static void handle(RoutingContext ctx) {
    ApiError answer = answer(ctx);
    if (answer == null) {
      ctx.next();
      return;
    }
    ErrorBody.send(ctx.response(), answer);
  }

  /** The answer of a failed request (logging what needs it); null for a status the API leaves to Vert.x. */
  public static ApiError answer(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    if (failure instanceof ApiError error) {
      return error;
    }
    if (failure instanceof StoreFailure store) {
      STORE_LOG.warn(store.store(), store.store() + " failed on " + ctx.request().method() + " "
          + HttpBootstrap.routeTemplate(ctx) + ", answering 503", store.getCause());
      return new ApiError(503, "store_unavailable", store.getMessage());
    }
    int status = ctx.statusCode();
    return status == 500 || status == -1 ? unexpected(ctx) : forStatus(status);
  }

  /** The answer of a failure Vert.x raised by status alone; null for a status the API has no answer of its own. */
  public static ApiError forStatus(int status) {
    return switch (status) {
      case 400 -> new ApiError(400, "bad_request", "malformed request");
      case 404 -> new ApiError(404, "not_found", "no such resource");
      case 405 -> new ApiError(405, "method_not_allowed", "method not allowed on this resource");
      case 413 -> new ApiError(413, "body_too_large", "request body is too large");
      case 417 -> new ApiError(417, "expectation_failed", "the only expectation taken is Expect: 100-continue");
      default -> null;
    };
  }

  /** A failure nobody expected (a bug): logged with its stack trace, answered 500 without it. */
  public static ApiError unexpected(RoutingContext ctx) {
    LOG.error("unhandled failure on {} {}", ctx.request().method(), ctx.request().path(), ctx.failure());
    return new ApiError(500, "internal_error", "internal error");
  }
}
