package newsfeed.inbound;

import newsfeed.common.http.ParticipantClient;
import newsfeed.common.ApiError;
import newsfeed.common.http.FeedPage;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;

import java.util.concurrent.TimeUnit;

/**
 * `GET /participant/:id/inbound?limit=&cursor=`: the participant's feed, newest first, as a plain JSON array of
 * {from,to,occurred,subject,story}; `X-Next-Cursor` is set when there is a next page.
 */
public final class InboundHandler {
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
    FeedPage.Request page;
    try {
      page = FeedPage.parse(ctx);
    } catch (ApiError e) {
      e.send(ctx);
      return;
    }
    long start = System.nanoTime();
    repository.page(page.participantId(), page.before(), page.fetchSize())
        .andThen(ar -> (ar.succeeded() ? loadOk : loadError).record(System.nanoTime() - start, TimeUnit.NANOSECONDS))
        .compose(rows -> rows.isEmpty() && page.before() == null
            ? requireParticipant(page.participantId()).map(rows) : Future.succeededFuture(rows))
        .onSuccess(rows -> FeedPage.respond(ctx, rows, page.limit()))
        .onFailure(err -> ApiError.from(err, "cassandra").send(ctx));
  }

  // an empty feed may belong to no one: 404 for an unknown id; when social-graph cannot tell, the empty feed stands
  private Future<Void> requireParticipant(long id) {
    return participants.exists(id)
        .recover(err -> Future.succeededFuture(true))
        .compose(exists -> exists ? Future.succeededFuture()
            : Future.failedFuture(new ApiError(404, "participant_not_found", "no participant with id " + id)));
  }
}
