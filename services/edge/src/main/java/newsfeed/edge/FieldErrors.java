package newsfeed.edge;

import graphql.ErrorType;
import graphql.GraphQLError;
import graphql.GraphqlErrorBuilder;
import graphql.execution.DataFetcherExceptionHandler;
import graphql.execution.DataFetcherExceptionHandlerParameters;
import graphql.execution.DataFetcherExceptionHandlerResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A field that failed becomes a GraphQL error with its HTTP meaning in `extensions` ({"code","status"}): a
 * service's own message for its 4xx, "... is unavailable" for 503. Anything unexpected is logged and shown as
 * an internal error, never as a stack trace.
 */
final class FieldErrors implements DataFetcherExceptionHandler {
  private static final Logger LOG = LoggerFactory.getLogger(FieldErrors.class);

  @Override
  public CompletableFuture<DataFetcherExceptionHandlerResult> handleException(DataFetcherExceptionHandlerParameters p) {
    Throwable t = p.getException();
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    FieldError e;
    if (t instanceof FieldError f) {
      e = f;
    } else {
      LOG.error("unexpected failure resolving {}", p.getPath(), t);
      e = new FieldError(500, "internal_error", "internal error");
    }
    GraphQLError error = GraphqlErrorBuilder.newError()
        .message(e.getMessage())
        .path(p.getPath())
        .location(p.getSourceLocation())
        .errorType(ErrorType.DataFetchingException)
        .extensions(Map.of("code", e.code(), "status", e.status()))
        .build();
    return CompletableFuture.completedFuture(DataFetcherExceptionHandlerResult.newResult(error).build());
  }
}
