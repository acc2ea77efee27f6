package newsfeed.common.http;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.UUID;

/**
 * Paging of the feeds (`GET /participant/:id/outbound|inbound?limit=&cursor=`): the body stays the classic plain
 * JSON array, newest first; `X-Next-Cursor` carries the timeuuid of the last row when another page follows.
 */
public final class FeedPage {
  public static final int DEFAULT_LIMIT = 20;
  public static final int MAX_LIMIT = 100;

  private FeedPage() {
  }

  /** One row of a feed: its post's timeuuid orders the feed and is the cursor. */
  public interface Entry {
    UUID occurred();

    JsonObject toJson();
  }

  /** A validated page request; {@code before} (exclusive) is null for the first page. */
  public record Request(long participantId, int limit, UUID before) {
    /** Rows to fetch: one more than asked tells whether a next page exists. */
    public int fetchSize() {
      return limit + 1;
    }
  }

  /** @throws ApiError 400 for a bad id, limit or cursor. */
  public static Request parse(RoutingContext ctx) {
    long id = Params.participantId(ctx.pathParam("id"));
    int limit = Params.limit(ctx.queryParams().get("limit"), DEFAULT_LIMIT, MAX_LIMIT);
    String cursor = ctx.queryParams().get("cursor");
    UUID before = null;
    if (cursor != null && !cursor.isEmpty()) {
      try {
        before = FeedCursor.decode(cursor);
      } catch (IllegalArgumentException e) {
        throw new ApiError(400, "invalid_cursor", "cursor must be a value of a previous X-Next-Cursor header");
      }
    }
    return new Request(id, limit, before);
  }

  /** A rendered page: the JSON array as sent and the `X-Next-Cursor` value, null on the last page. */
  public record Body(String json, String nextCursor) {
    public void send(RoutingContext ctx) {
      if (nextCursor != null) {
        ctx.response().putHeader("X-Next-Cursor", nextCursor);
      }
      ctx.response().putHeader("Content-Type", "application/json").end(json);
    }
  }

  /** The first {@code limit} rows of up to {@code limit + 1} fetched, with the cursor when more follow. */
  public static Body render(List<? extends Entry> rows, int limit) {
    JsonArray body = new JsonArray();
    rows.stream().limit(limit).forEach(r -> body.add(r.toJson()));
    return new Body(body.encode(), rows.size() > limit ? FeedCursor.encode(rows.get(limit - 1).occurred()) : null);
  }

  /** Answers the first {@code limit} rows of up to {@code limit + 1} fetched, with the cursor when more follow. */
  public static void respond(RoutingContext ctx, List<? extends Entry> rows, int limit) {
    render(rows, limit).send(ctx);
  }
}
