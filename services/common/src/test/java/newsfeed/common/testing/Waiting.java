package newsfeed.common.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.function.Predicate;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** What integration tests wait for: eventually consistent results, and a port to deploy a service on. */
public final class Waiting {
  /** Fan-out, indexing (Solr's commitWithin ~1 s) and consumer rebalances settle well within this. */
  private static final long WITHIN_MS = 20_000;

  private Waiting() {
  }

  /** Polls every 250 ms until {@code done} holds (up to 20 s); fails the test with the last value otherwise. */
  public static <T> T eventually(Supplier<T> probe, Predicate<T> done) throws InterruptedException {
    long deadline = System.currentTimeMillis() + WITHIN_MS;
    T last = probe.get();
    while (!done.test(last) && System.currentTimeMillis() < deadline) {
      Thread.sleep(250);
      last = probe.get();
    }
    assertTrue(done.test(last), "condition not reached within " + WITHIN_MS / 1000 + " s, last value: " + last);
    return last;
  }

  /** A port nothing listens on right now, for a service deployed by the test. */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
