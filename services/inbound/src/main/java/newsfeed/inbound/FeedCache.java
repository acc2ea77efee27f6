package newsfeed.inbound;

import io.vertx.core.Future;
import newsfeed.common.http.FeedPage;
import newsfeed.common.redis.StampedCache;
import newsfeed.common.redis.StampedCache.Lookup;

import java.util.List;

/**
 * The first page of each inbound feed at the default page size, in Redis exactly as it was sent (the JSON body and
 * its `X-Next-Cursor`): most reads of a news feed are of its first page, and a hit costs neither Cassandra nor the
 * JSON encoding. Fan-out invalidates a friend's page after writing its row (a {@link StampedCache}: a slow reader
 * can never put back a page from before the write). Off ({@link #off()}) when INBOUND_CACHE_TTL_SECONDS is 0.
 */
public final class FeedCache {
  static final String PREFIX = "ib:v1:page";

  private final StampedCache pages;

  FeedCache(StampedCache pages) {
    this.pages = pages;
  }

  static FeedCache off() {
    return new FeedCache(null);
  }

  /** Only first pages of the default size are cached: other limits and later pages are read from Cassandra. */
  boolean covers(FeedPage.Request page) {
    return pages != null && page.before() == null && page.limit() == FeedPage.DEFAULT_LIMIT;
  }

  /** Never fails; a bypass (stamp null) when the cache is off or Redis is away. */
  Future<Lookup<FeedPage.Body>> get(long participantId) {
    return pages == null ? Future.succeededFuture(Lookup.bypass()) : pages.get(participantId, FeedCache::decode);
  }

  void put(long participantId, String stamp, FeedPage.Body page) {
    if (pages != null) {
      pages.put(participantId, stamp, encode(page));
    }
  }

  /** Call after the rows are in Cassandra. Never fails (see {@link StampedCache#invalidate}). */
  Future<Void> invalidate(List<Long> participantIds) {
    return pages == null ? Future.succeededFuture() : pages.invalidate(participantIds);
  }

  void close() {
    if (pages != null) {
      pages.close();
    }
  }

  static String key(long participantId) {
    return StampedCache.valueKey(PREFIX, participantId);
  }

  static String generationKey(long participantId) {
    return StampedCache.generationKey(PREFIX, participantId);
  }

  /** "cursor|json": the cursor is base64url (never a '|') and empty on the last page; the body a JSON array. */
  static String encode(FeedPage.Body page) {
    return (page.nextCursor() == null ? "" : page.nextCursor()) + "|" + page.json();
  }

  /** The page, or null when the value is not in the expected format (a miss). */
  static FeedPage.Body decode(String value) {
    int bar = value.indexOf('|');
    if (bar < 0 || !value.startsWith("[", bar + 1) || !value.endsWith("]")) {
      return null;
    }
    return new FeedPage.Body(value.substring(bar + 1), bar == 0 ? null : value.substring(0, bar));
  }
}
