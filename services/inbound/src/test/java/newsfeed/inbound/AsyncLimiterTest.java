package newsfeed.inbound;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AsyncLimiterTest {

  @Test
  void neverRunsMoreThanTheLimitAndRunsEverything() {
    AsyncLimiter limiter = new AsyncLimiter(3);
    List<Promise<Void>> pending = new ArrayList<>();
    List<Future<Void>> results = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      results.add(limiter.submit(() -> {
        Promise<Void> p = Promise.promise();
        pending.add(p);
        return p.future();
      }));
    }
    assertEquals(3, limiter.inFlight());
    assertEquals(7, limiter.queued());
    int completed = 0;
    while (completed < pending.size()) {
      pending.get(completed++).complete();
      assertTrue(limiter.inFlight() <= 3);
    }
    assertEquals(10, completed);
    assertEquals(0, limiter.inFlight());
    assertTrue(results.stream().allMatch(Future::succeeded));
  }

  @Test
  void synchronouslyCompletingOperationsDoNotOverflowTheStack() {
    AsyncLimiter limiter = new AsyncLimiter(1);
    Promise<Void> first = Promise.promise();
    limiter.submit(() -> first.future());
    List<Future<Void>> rest = new ArrayList<>();
    for (int i = 0; i < 200_000; i++) {
      rest.add(limiter.submit(() -> Future.failedFuture("cancelled")));
    }
    first.complete();
    assertEquals(0, limiter.queued());
    assertTrue(rest.stream().allMatch(Future::failed));
  }
}
