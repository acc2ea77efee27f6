package newsfeed.outbound;

import newsfeed.common.http.FeedPage;
import newsfeed.common.http.Params;
import newsfeed.common.http.ParticipantClient;
import newsfeed.common.http.RequestBody;
import newsfeed.common.http.StoreFailure;
import newsfeed.common.metrics.OperationTimer;

import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * `POST /participant/:id/outbound` (JSON or form): store the post in Cassandra, then publish its event; 200 with
 * the post only after both.
 * When the event cannot be published the row is deleted again (compensation, see README.md) and the answer is
 * 503, so a post is never visible in the outbound feed without being on its way to friends and search.
 * `GET /participant/:id/outbound?limit=&cursor=`: the participant's own posts, newest first, as a plain JSON array
 * of {from,occurred,subject,story}; `X-Next-Cursor` is set when there is a next page.
 */
public final class OutboundHandler {
  private static final Logger LOG = LoggerFactory.getLogger(OutboundHandler.class);
  static final int COMPENSATION_ATTEMPTS = 3;
  static final long COMPENSATION_BACKOFF_MS = 250;

  private final Vertx vertx;
  private final OutboundRepository repository;
  private final EventPublisher publisher;
  private final ParticipantClient participants;
  private final OperationTimer post;
  private final OperationTimer load;

  public OutboundHandler(Vertx vertx, OutboundRepository repository, EventPublisher publisher,
                         ParticipantClient participants, MeterRegistry registry) {
    this.vertx = vertx;
    this.repository = repository;
    this.publisher = publisher;
    this.participants = participants;
    this.post = new OperationTimer(registry, "outbound", "post");
    this.load = new OperationTimer(registry, "outbound", "load");
  }

  /**
   * 404 for a poster social-graph does not know; when social-graph cannot answer the post is accepted (posting must
   * not depend on another service being up; the fan-out of a post by an unknown id simply reaches no one).
   */
  public void post(RoutingContext ctx) {
    PostRequest request = PostRequest.parse(Params.participantId(ctx.pathParam("id")), RequestBody.fields(ctx));
    OutboundItem item = new OutboundItem(request.participantId(), Uuids.timeBased(), request.occurred(),
        request.subject(), request.story());
    post.time(() -> store(item))
        .recover(StoreFailure.as("store"))
        .onSuccess(v -> ctx.response().setStatusCode(200).putHeader("Content-Type", "application/json")
            .end(item.toJson().encode()))
        .onFailure(ctx::fail);
  }

  // the poster exists, the row is written and its event published; else the row is deleted again
  private Future<Void> store(OutboundItem item) {
    return participants.require(item.participantId())
        .compose(v -> repository.insert(item).recover(StoreFailure.as("cassandra")))
        .compose(v -> publisher.publish(item.event()).recover(err -> compensate(item, err)
            .transform(ar -> Future.failedFuture(StoreFailure.wrap(err, "kafka")))));
  }

  /**
   * The event is not out, so the row must go: retried a few times; if Cassandra fails as well the post stays
   * visible without fan-out, which is logged with its key for an operator (both stores failing at once).
   */
  private Future<Void> compensate(OutboundItem item, Throwable publishError) {
    LOG.warn("event of post {}/{} not published, deleting the row: {}", item.participantId(), item.occurred(),
        publishError.toString());
    return deleteWithRetry(item, 1).onFailure(err -> LOG.error(
        "post {}/{} is stored but its event was not published and the row could not be deleted: {}",
        item.participantId(), item.occurred(), err.toString()));
  }

  private Future<Void> deleteWithRetry(OutboundItem item, int attempt) {
    return repository.delete(item.participantId(), item.occurred()).recover(err -> {
      if (attempt >= COMPENSATION_ATTEMPTS) {
        return Future.failedFuture(err);
      }
      Promise<Void> retried = Promise.promise();
      vertx.setTimer(COMPENSATION_BACKOFF_MS * attempt, t -> deleteWithRetry(item, attempt + 1).onComplete(retried));
      return retried.future();
    });
  }

  /** An empty first page of an unknown participant is a 404; when social-graph cannot tell, the empty feed stands. */
  public void get(RoutingContext ctx) {
    FeedPage.Request page = FeedPage.parse(ctx);
    load.time(() -> repository.page(page.participantId(), page.before(), page.fetchSize()))
        .compose(rows -> rows.isEmpty() && page.before() == null
            ? participants.require(page.participantId()).map(rows) : Future.succeededFuture(rows))
        .recover(StoreFailure.as("cassandra"))
        .onSuccess(rows -> FeedPage.respond(ctx, rows, page.limit()))
        .onFailure(ctx::fail);
  }
}
