package newsfeed.socialgraph;

import io.vertx.ext.web.RoutingContext;
import newsfeed.common.http.ApiError;
import newsfeed.common.logging.RateLimitedLog;
import org.slf4j.LoggerFactory;

/** Turns a failed operation into its answer: API errors as they are, anything else is PostgreSQL failing: 503. */
final class Failures {
  private static final RateLimitedLog LOG = new RateLimitedLog(LoggerFactory.getLogger(Failures.class), 10_000);

  private Failures() {
  }

  static void send(RoutingContext ctx, Throwable err) {
    if (!(err instanceof ApiError)) {
      LOG.warn("postgresql", "PostgreSQL failed on " + ctx.request().method() + " " + ctx.currentRoute().getPath()
          + ", answering 503", err);
    }
    ApiError.from(err, "postgresql").send(ctx);
  }
}
