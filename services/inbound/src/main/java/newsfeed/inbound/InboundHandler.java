package newsfeed.inbound;

import newsfeed.common.ApiError;
import newsfeed.common.FeedCursor;
import newsfeed.common.Params;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * `GET /participant/:id/inbound?limit=&cursor=`: the participant's feed, newest first, as a plain JSON array of
 * {from,to,occurred,subject,story}; `X-Next-Cursor` is set when there is a next page.
 */
public final class InboundHandler {
  static final int DEFAULT_LIMIT = 20;
  static final int MAX_LIMIT = 100;

  private final InboundRepository repository;
  private final ParticipantClient participants;
  private final Timer loadOk;
  private final Timer loadError;

  public InboundHandler(InboundRepository repository, ParticipantClient participants, MeterRegistry registry) {
    this.repository = repository;
    this.participants = participants;
    this.loadOk = operation(registry, "success");
    this.loadError = operation(registry, "error");
  }

  private static Timer operation(MeterRegistry registry, String outcome) {
    return Timer.builder("newsfeed.operation")
        .tag("entity", "inbound").tag("operation", "load").tag("outcome", outcome)
        .register(registry);
  }

  public void get(RoutingContext ctx) {
    long id;
    int limit;
    UUID before;
    try {
      id = Params.participantId(ctx.pathParam("id"));
      limit = Params.limit(ctx.queryParams().get("limit"), DEFAULT_LIMIT, MAX_LIMIT);
      String cursor = ctx.queryParams().get("cursor");
      before = cursor == null || cursor.isEmpty() ? null : decodeCursor(cursor);
    } catch (ApiError e) {
      e.send(ctx);
      return;
    }
    long start = System.nanoTime();
    // one row more than asked tells whether a next page exists
    repository.page(id, before, limit + 1)
        .andThen(ar -> (ar.succeeded() ? loadOk : loadError).record(System.nanoTime() - start, TimeUnit.NANOSECONDS))
        .compose(rows -> rows.isEmpty() && before == null ? requireParticipant(id).map(rows) : Future.succeededFuture(rows))
        .onSuccess(rows -> respond(ctx, rows, limit))
        .onFailure(err -> ApiError.from(err, "cassandra").send(ctx));
  }

  private static UUID decodeCursor(String cursor) {
    try {
      return FeedCursor.decode(cursor);
    } catch (IllegalArgumentException e) {
      throw new ApiError(400, "invalid_cursor", "cursor must be a value of a previous X-Next-Cursor header");
    }
  }

  // an empty feed may belong to no one: 404 for an unknown id; when social-graph cannot tell, the empty feed stands
  private Future<Void> requireParticipant(long id) {
    return participants.exists(id)
        .recover(err -> Future.succeededFuture(true))
        .compose(exists -> exists ? Future.succeededFuture()
            : Future.failedFuture(new ApiError(404, "participant_not_found", "no participant with id " + id)));
  }

  private static void respond(RoutingContext ctx, List<InboundItem> rows, int limit) {
    JsonArray body = new JsonArray();
    rows.stream().limit(limit).forEach(r -> body.add(r.toJson()));
    if (rows.size() > limit) {
      ctx.response().putHeader("X-Next-Cursor", FeedCursor.encode(rows.get(limit - 1).occurred()));
    }
    ctx.response().putHeader("Content-Type", "application/json").end(body.encode());
  }
}
