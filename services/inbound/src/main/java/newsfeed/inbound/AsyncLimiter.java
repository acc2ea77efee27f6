package newsfeed.inbound;

import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.function.Supplier;

/**
 * Caps how many async operations run at once (e.g. Cassandra inserts of a 100k-friend fan-out), queueing
 * the rest. Used from one event loop only, so it needs no locking.
 */
public final class AsyncLimiter {
  private final int maxInFlight;
  private final Queue<Runnable> waiting = new ArrayDeque<>();
  private int inFlight;
  private boolean draining;

  public AsyncLimiter(int maxInFlight) {
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be >= 1");
    }
    this.maxInFlight = maxInFlight;
  }

  /** Runs the operation as soon as a slot is free; the result completes with the operation's. */
  public <T> Future<T> submit(Supplier<Future<T>> operation) {
    Promise<T> result = Promise.promise();
    waiting.add(() -> {
      inFlight++;
      Future<T> f;
      try {
        f = operation.get();
      } catch (RuntimeException e) {
        f = Future.failedFuture(e);
      }
      f.onComplete(ar -> {
        inFlight--;
        result.handle(ar);
        drain();
      });
    });
    drain();
    return result.future();
  }

  // a loop, not recursion: operations that complete synchronously must not grow the stack per queued item
  private void drain() {
    if (draining) {
      return;
    }
    draining = true;
    try {
      while (inFlight < maxInFlight && !waiting.isEmpty()) {
        waiting.poll().run();
      }
    } finally {
      draining = false;
    }
  }

  public int inFlight() {
    return inFlight;
  }

  public int queued() {
    return waiting.size();
  }
}
