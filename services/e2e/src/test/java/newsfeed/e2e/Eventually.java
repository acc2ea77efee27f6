package newsfeed.e2e;

import java.util.function.Predicate;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the end-to-end tests wait for: fan-out and indexing, which are asynchronous, through the running API. */
final class Eventually {
  /** Fan-out, indexing and consumer rebalances of a loaded machine settle well within this. */
  static final long WAIT_MS = 30_000;

  private Eventually() {
  }

  /** Polls every 250 ms until {@code done} holds (up to 30 s); fails the test with the last value otherwise. */
  static <T> T eventually(Supplier<T> probe, Predicate<T> done) throws InterruptedException {
    long deadline = System.currentTimeMillis() + WAIT_MS;
    T last = probe.get();
    while (!done.test(last) && System.currentTimeMillis() < deadline) {
      Thread.sleep(250);
      last = probe.get();
    }
    assertTrue(done.test(last), "not reached within " + WAIT_MS / 1000 + " s, last value: " + last);
    return last;
  }
}
