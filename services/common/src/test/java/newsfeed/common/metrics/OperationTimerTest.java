package newsfeed.common.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import newsfeed.common.http.ApiError;
import newsfeed.common.http.StoreFailure;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OperationTimerTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final OperationTimer timer = new OperationTimer(registry, "thing", "load");

  @Test
  void anOperationThatFailedOnOurSideIsAnError() {
    timer.time(() -> Future.succeededFuture("ok"));
    timer.time(() -> Future.failedFuture(ApiError.participantNotFound(7)));   // the client's mistake, answered
    timer.time(() -> Future.failedFuture(new StoreFailure("postgresql", new RuntimeException("down"))));
    timer.time(() -> Future.failedFuture(new ApiError(500, "internal_error", "the search failed")));
    Future<String> thrown = timer.time(() -> {
      throw new IllegalStateException("a bug");
    });
    assertTrue(thrown.failed(), "a throw is the operation's failure");
    assertEquals(2, count("success"));
    assertEquals(3, count("error"));
  }

  private long count(String outcome) {
    return registry.get("newsfeed.operation").tag("entity", "thing").tag("operation", "load")
        .tag("outcome", outcome).timer().count();
  }
}
