package newsfeed.common.auth;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import newsfeed.common.http.Params;

/**
 * The route handlers that guard a service's write routes, after the body handler ({@code RawBody}) and before the
 * route's own handler: {@link #anyCaller()} lets any verified caller on (POST /participant),
 * {@link #asParticipant(String)} only the participant of the path (POST /participant/:id/...). A refusal fails the
 * context with the ApiError (401, 400 for a bad id, 403) for the route's FailureHandler. While authentication is off
 * they only pass the request on. Reads are never guarded.
 */
public final class WriteAuth {
  private final BearerTokens tokens;

  private WriteAuth(BearerTokens tokens) {
    this.tokens = tokens;
  }

  public static WriteAuth create(Vertx vertx, AuthConfig config) {
    return new WriteAuth(BearerTokens.create(vertx, config));
  }

  public Handler<RoutingContext> anyCaller() {
    if (!tokens.enabled()) {
      return RoutingContext::next;
    }
    return ctx -> tokens.caller(ctx.request().getHeader(HttpHeaders.AUTHORIZATION))
        .onSuccess(caller -> ctx.next()).onFailure(ctx::fail);
  }

  /** The caller must be the participant of path parameter {@code idParam}. */
  public Handler<RoutingContext> asParticipant(String idParam) {
    if (!tokens.enabled()) {
      return RoutingContext::next;
    }
    return ctx -> tokens.caller(ctx.request().getHeader(HttpHeaders.AUTHORIZATION))
        .map(caller -> {
          caller.requireParticipant(Params.participantId(ctx.pathParam(idParam)));
          return caller;
        })
        .onSuccess(caller -> ctx.next()).onFailure(ctx::fail);
  }
}
