package newsfeed.edge;

import graphql.ErrorClassification;
import graphql.ErrorType;
import graphql.ExecutionResult;
import graphql.GraphQLError;
import graphql.execution.instrumentation.InstrumentationState;
import graphql.execution.instrumentation.SimplePerformantInstrumentation;
import graphql.execution.instrumentation.parameters.InstrumentationExecutionParameters;
import io.vertx.ext.web.RoutingContext;
import newsfeed.common.auth.BearerTokens;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The HTTP status of a GraphQL answer, so clients that only look at the status (the classic load client treats
 * anything but 200 as a failure) see what happened: 400 for a query that does not parse or validate, 503 when a
 * service was unavailable, a service's 4xx when nothing of the request succeeded because of it, else 200 (with
 * the errors of the fields that failed). A request of which a mutation was stored is 200 whatever else failed (a
 * service unavailable for another field, or for a field of the stored one's answer): told to retry the whole
 * request, a client would store it twice; the errors say which fields failed. The body is always the GraphQL answer.
 */
final class AnswerStatus extends SimplePerformantInstrumentation {
  private static final String KEY = "newsfeed.edge.status";
  private static final String STORED = "newsfeed.edge.stored";

  /**
   * Route handler before the GraphQL handler: the status is set just before the headers go out, with the bearer
   * challenge of a 401 (a mutation without a good token) and the {@code Allow} of a 405.
   */
  static void apply(RoutingContext ctx) {
    ctx.addHeadersEndHandler(v -> {
      Integer status = ctx.get(KEY);
      if (status != null && ctx.response().getStatusCode() == 200) {
        ctx.response().setStatusCode(status);
        if (status == 401) {
          ctx.response().putHeader("WWW-Authenticate", BearerTokens.CHALLENGE);
        } else if (status == 405) {
          // the one 405 a field raises: a mutation in a GET of /graphql, which takes GET and POST
          ctx.response().putHeader("Allow", "GET, POST");
        }
      }
    });
    ctx.next();
  }

  /** Marks the request as one whose mutation a service has stored (its answer was a success). */
  static void stored(RoutingContext ctx) {
    ctx.put(STORED, true);
  }

  @Override
  public CompletableFuture<ExecutionResult> instrumentExecutionResult(ExecutionResult result,
                                                                      InstrumentationExecutionParameters parameters,
                                                                      InstrumentationState state) {
    RoutingContext ctx = parameters.getGraphQLContext().get(RoutingContext.class);
    if (ctx != null) {
      ctx.put(KEY, of(result, Boolean.TRUE.equals(ctx.get(STORED))));
    }
    return CompletableFuture.completedFuture(result);
  }

  static int of(ExecutionResult result, boolean stored) {
    if (result.getErrors().isEmpty()) {
      return 200;
    }
    int client = 0;
    int server = 0;
    for (GraphQLError error : result.getErrors()) {
      Map<String, Object> ext = error.getExtensions();
      Object status = ext == null ? null : ext.get("status");
      if (status instanceof Integer s) {
        if (s >= 500) {
          server = Math.max(server, s == 500 ? 500 : 503);
        } else if (client == 0) {
          client = s;
        }
      } else if (isRequestError(error.getErrorType())) {
        return 400;
      }
    }
    if (stored) {
      return 200;
    }
    if (server != 0) {
      return server;
    }
    return nothingResolved(result) ? (client != 0 ? client : 500) : 200;
  }

  /** Syntax, validation (unknown fields, wrong argument types, bad variables) and a query too deep. */
  private static boolean isRequestError(ErrorClassification type) {
    return type == ErrorType.InvalidSyntax || type == ErrorType.ValidationError
        || type == ErrorType.OperationNotSupported || type == ErrorType.ExecutionAborted;
  }

  private static boolean nothingResolved(ExecutionResult result) {
    Object data = result.getData();
    return !(data instanceof Map<?, ?> fields) || fields.values().stream().allMatch(Objects::isNull);
  }
}
