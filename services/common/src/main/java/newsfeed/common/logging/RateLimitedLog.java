package newsfeed.common.logging;

import org.slf4j.Logger;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Logs a recurring failure (a store is down) once per interval per key with the count of the ones it skipped,
 * so an outage under load is visible in the logs without flooding them; the metrics still count every one.
 */
public final class RateLimitedLog {
  private final Logger log;
  private final long intervalNanos;
  private final ConcurrentHashMap<String, long[]> state = new ConcurrentHashMap<>();

  public RateLimitedLog(Logger log, long intervalMillis) {
    this.log = log;
    this.intervalNanos = intervalMillis * 1_000_000;
  }

  public void warn(String key, String message, Throwable err) {
    long now = System.nanoTime();
    long[] s = state.computeIfAbsent(key, k -> new long[] {now - intervalNanos, 0});
    synchronized (s) {
      if (now - s[0] < intervalNanos) {
        s[1]++;
        return;
      }
      long suppressed = s[1];
      s[0] = now;
      s[1] = 0;
      log.warn("{}: {} ({} similar suppressed)", message, err == null ? "" : err.toString(), suppressed);
    }
  }
}
