package newsfeed.inbound;

import newsfeed.common.http.ParticipantClient;
import newsfeed.common.http.ApiError;
import newsfeed.common.http.FeedPage;
import newsfeed.common.metrics.OperationTimer;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;

/**
 * `GET /participant/:id/inbound?limit=&cursor=`: the participant's feed, newest first, as a plain JSON array of
 * {from,to,occurred,subject,story}; `X-Next-Cursor` is set when there is a next page. First pages of the default
 * size come from the {@link FeedCache} when it has them, and fill it when it does not.
 */
public final class InboundHandler {
  private final InboundRepository repository;
  private final FeedCache cache;
  private final ParticipantClient participants;
  private final OperationTimer load;

  public InboundHandler(InboundRepository repository, FeedCache cache, ParticipantClient participants,
                        MeterRegistry registry) {
    this.repository = repository;
    this.cache = cache;
    this.participants = participants;
    this.load = new OperationTimer(registry, "inbound", "load");
  }

  public void get(RoutingContext ctx) {
    FeedPage.Request page;
    try {
      page = FeedPage.parse(ctx);
    } catch (ApiError e) {
      e.send(ctx);
      return;
    }
    if (!cache.covers(page)) {
      load(ctx, page, null);
      return;
    }
    FeedPage.Request request = page;
    cache.get(page.participantId()).onSuccess(lookup -> {
      if (lookup.hit()) {
        lookup.value().send(ctx);
      } else {
        load(ctx, request, lookup.stamp());
      }
    });
  }

  // from Cassandra; a non-empty page fills the cache when the lookup gave a stamp (an empty one may be a 404)
  private void load(RoutingContext ctx, FeedPage.Request page, String stamp) {
    load.time(() -> repository.page(page.participantId(), page.before(), page.fetchSize()))
        .compose(rows -> rows.isEmpty() && page.before() == null
            ? requireParticipant(page.participantId()).map(rows) : Future.succeededFuture(rows))
        .onSuccess(rows -> {
          FeedPage.Body body = FeedPage.render(rows, page.limit());
          body.send(ctx);
          if (stamp != null && !rows.isEmpty()) {
            cache.put(page.participantId(), stamp, body);
          }
        })
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
