package newsfeed.socialgraph;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import newsfeed.common.http.ApiError;
import newsfeed.common.http.Params;
import newsfeed.common.http.JsonBody;
import newsfeed.common.http.RequestBody;
import newsfeed.common.http.StoreFailure;
import newsfeed.common.metrics.OperationTimer;

/**
 * `POST /participant/:id/friends` {from?, to} (JSON or form) -> 200 {id,from,to}, the existing row when the two
 * are already friends, 409 too_many_friends when either would pass SOCIAL_GRAPH_MAX_FRIENDS;
 * `GET /participant/:id/friends?limit=&cursor=` -> 200 [{id,from,to}] ordered by friend id, with `X-Next-Cursor`
 * when there are more. Without `limit` the whole list comes back (up to {@link #MAX_LIMIT}),
 * as classic clients expect.
 */
public final class FriendsHandler {
  static final int MAX_LIMIT = 10_000;

  private final SocialGraph graph;
  private final OperationTimer store;
  private final OperationTimer load;

  public FriendsHandler(SocialGraph graph, MeterRegistry registry) {
    this.graph = graph;
    this.store = new OperationTimer(registry, "friends", "store");
    this.load = new OperationTimer(registry, "friends", "load");
  }

  /** The two ends of a friendship request; `from`, when given, must be the participant of the path. */
  record FriendRequest(long from, long to) {
    static FriendRequest parse(long id, JsonObject body) {
      Long from = JsonBody.optionalParticipant(body, "from");
      if (from != null && from != id) {
        throw new ApiError(400, "invalid_field", "from must be the participant of the path, /participant/" + id);
      }
      Long to = JsonBody.optionalParticipant(body, "to");
      if (to == null) {
        throw new ApiError(400, "missing_field", "to is required");
      }
      if (to == id) {
        throw new ApiError(400, "invalid_field", "a participant cannot befriend itself");
      }
      return new FriendRequest(id, to);
    }
  }

  public void create(RoutingContext ctx) {
    long id = Params.participantId(ctx.pathParam("id"));
    FriendRequest req = FriendRequest.parse(id, RequestBody.fields(ctx));
    store.time(() -> graph.befriend(req.from(), req.to())).recover(StoreFailure.as("postgresql"))
        .onSuccess(r -> ctx.response().putHeader("Content-Type", "application/json").end(r.friend().toJson().encode()))
        .onFailure(ctx::fail);
  }

  public void list(RoutingContext ctx) {
    long id = Params.participantId(ctx.pathParam("id"));
    int limit = Params.limit(ctx.queryParams().get("limit"), MAX_LIMIT, MAX_LIMIT);
    long after = FriendsCursor.decode(ctx.queryParams().get("cursor"));
    load.time(() -> graph.friends(id, after, limit)).recover(StoreFailure.as("postgresql"))
        .onSuccess(page -> {
          JsonArray body = new JsonArray();
          page.friends().forEach(f -> body.add(f.toJson()));
          if (page.nextCursor() != null) {
            ctx.response().putHeader("X-Next-Cursor", page.nextCursor());
          }
          ctx.response().putHeader("Content-Type", "application/json").end(body.encode());
        })
        .onFailure(ctx::fail);
  }
}
