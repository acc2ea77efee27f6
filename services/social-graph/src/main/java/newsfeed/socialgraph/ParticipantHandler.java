package newsfeed.socialgraph;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.ext.web.RoutingContext;
import newsfeed.common.model.Links;
import newsfeed.common.http.IdempotencyKey;
import newsfeed.common.http.Params;
import newsfeed.common.http.RequestBody;
import newsfeed.common.http.StoreFailure;
import newsfeed.common.metrics.OperationTimer;

/**
 * `POST /participant` {name} (JSON or form) -> 200 {id,name,link} with Location, the classic contract's status;
 * `GET /participant/:id` -> 200 {id,name,link}. Classic clients may also send `id` or `link` in the body: they are
 * ignored, the store assigns the id. With an `Idempotency-Key` header a retry gets the participant of the first
 * request with that key (422 when that one has another name). Bad input throws an ApiError 400, a PostgreSQL
 * failure fails the request with a StoreFailure: the common FailureHandler answers both.
 */
public final class ParticipantHandler {
  private final SocialGraph graph;
  private final OperationTimer store;
  private final OperationTimer load;

  public ParticipantHandler(SocialGraph graph, MeterRegistry registry) {
    this.graph = graph;
    this.store = new OperationTimer(registry, "participant", "store");
    this.load = new OperationTimer(registry, "participant", "load");
  }

  public void create(RoutingContext ctx) {
    String name = Input.participantName(RequestBody.fields(ctx));
    String key = IdempotencyKey.parse(ctx.request().getHeader(IdempotencyKey.HEADER));
    store.time(() -> graph.createParticipant(name, key)).recover(StoreFailure.as("postgresql"))
        .onSuccess(p -> ctx.response().setStatusCode(200).putHeader("Location", Links.participant(p.id()))
            .putHeader("Content-Type", "application/json").end(p.toJson().encode()))
        .onFailure(ctx::fail);
  }

  public void get(RoutingContext ctx) {
    long id = Params.participantId(ctx.pathParam("id"));
    load.time(() -> graph.participant(id)).recover(StoreFailure.as("postgresql"))
        .onSuccess(p -> ctx.response().putHeader("Content-Type", "application/json").end(p.toJson().encode()))
        .onFailure(ctx::fail);
  }
}
