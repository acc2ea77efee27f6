package newsfeed.inbound;

import newsfeed.common.http.FeedPage;
import newsfeed.common.http.ParticipantClient;
import newsfeed.common.http.StoreFailure;
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
    FeedPage.Request page = FeedPage.parse(ctx);
    if (!cache.covers(page)) {
      load(ctx, page, null);
      return;
    }
    cache.get(page.participantId()).onSuccess(lookup -> {
      if (lookup.hit()) {
        lookup.value().send(ctx);
      } else {
        load(ctx, page, lookup.stamp());
      }
    });
  }

  // from Cassandra; a non-empty page fills the cache when the lookup gave a stamp (an empty one may be a 404: an
  // empty first page of an unknown participant is one, unless social-graph cannot tell)
  private void load(RoutingContext ctx, FeedPage.Request page, String stamp) {
    load.time(() -> repository.page(page.participantId(), page.before(), page.fetchSize()))
        .compose(rows -> rows.isEmpty() && page.before() == null
            ? participants.require(page.participantId()).map(rows) : Future.succeededFuture(rows))
        .recover(StoreFailure.as("cassandra"))
        .onSuccess(rows -> {
          FeedPage.Body body = FeedPage.render(rows, page.limit());
          body.send(ctx);
          if (stamp != null && !rows.isEmpty()) {
            cache.put(page.participantId(), stamp, rows, page.limit());
          }
        })
        .onFailure(ctx::fail);
  }
}
