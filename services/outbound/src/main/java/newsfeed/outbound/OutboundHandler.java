package newsfeed.outbound;

import newsfeed.common.errors.Causes;
import newsfeed.common.events.OutboundRetractedEvent;
import newsfeed.common.events.TimeUuids;
import newsfeed.common.http.ApiError;
import newsfeed.common.http.FeedPage;
import newsfeed.common.http.IdempotencyKey;
import newsfeed.common.http.Params;
import newsfeed.common.http.ParticipantClient;
import newsfeed.common.http.RequestBody;
import newsfeed.common.http.StoreFailure;
import newsfeed.common.metrics.OperationTimer;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.connection.ConnectionInitException;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * `POST /participant/:id/outbound` (JSON or form): store the post in Cassandra, then publish its event; 200 with
 * the post only after both. A 503 means the post exists nowhere, now or later (see README.md, "Outcomes of a
 * post"): a write whose answer was lost, or a post whose event could not be published, is cancelled with a
 * tombstone written after it, and a failed publish is followed by a retraction ({@link Retractions}) in case the
 * event reached the broker after all. With an `Idempotency-Key` a retry gets the post of the first request back, never a
 * second one ({@link PostClaims}).
 * `GET /participant/:id/outbound?limit=&cursor=`: the participant's own posts, newest first, as a plain JSON array
 * of {from,occurred,subject,story}; `X-Next-Cursor` is set when there is a next page.
 */
public final class OutboundHandler {
  private static final Logger LOG = LoggerFactory.getLogger(OutboundHandler.class);
  static final int CANCEL_ATTEMPTS = 3;
  static final long CANCEL_BACKOFF_MS = 250;
  /** After the request gave up: further attempts every so often, for as long, before an operator is needed. */
  static final long LATE_CANCEL_EVERY_MS = 5_000;
  static final int LATE_CANCEL_ATTEMPTS = 60;
  /** How long a request holds its key: longer than the longest post (publish worst case, cancellation). */
  static final Duration LEASE = Duration.ofSeconds(30);

  private final Vertx vertx;
  private final OutboundRepository repository;
  private final PendingPosts pending;
  private final PostClaims claims;
  private final EventPublisher publisher;
  private final Retractions retractions;
  private final ParticipantClient participants;
  private final OperationTimer post;
  private final OperationTimer load;
  private final Counter cancelled;
  private final Counter cancelledLate;
  private final Counter abandoned;

  public OutboundHandler(Vertx vertx, OutboundRepository repository, PendingPosts pending, PostClaims claims,
                         EventPublisher publisher, Retractions retractions, ParticipantClient participants,
                         MeterRegistry registry) {
    this.vertx = vertx;
    this.repository = repository;
    this.pending = pending;
    this.claims = claims;
    this.publisher = publisher;
    this.retractions = retractions;
    this.participants = participants;
    this.post = new OperationTimer(registry, "outbound", "post");
    this.load = new OperationTimer(registry, "outbound", "load");
    this.cancelled = cancellations(registry, "cancelled");
    this.cancelledLate = cancellations(registry, "cancelled_late");
    this.abandoned = cancellations(registry, "abandoned");
  }

  private static Counter cancellations(MeterRegistry registry, String outcome) {
    return Counter.builder("newsfeed.outbound.cancellations").tag("outcome", outcome)
        .description("posts answered 503 whose row had to be cancelled, by how that ended").register(registry);
  }

  /**
   * 404 for a poster social-graph does not know; when social-graph cannot answer the post is accepted (posting must
   * not depend on another service being up; the fan-out of a post by an unknown id simply reaches no one).
   */
  public void post(RoutingContext ctx) {
    PostRequest request = PostRequest.parse(Params.participantId(ctx.pathParam("id")), RequestBody.fields(ctx));
    String key = IdempotencyKey.parse(ctx.request().getHeader(IdempotencyKey.HEADER));
    OutboundItem item = new OutboundItem(request.participantId(), Uuids.timeBased(), request.occurred(),
        request.subject(), request.story());
    post.time(() -> participants.require(item.participantId())
        .compose(
            v -> key == null ? store(item, TimeUuids.unixMicros(item.occurred())).map(item) : storeOnce(key, item)))
        .onSuccess(stored -> ctx.response().setStatusCode(200).putHeader("Content-Type", "application/json")
            .end(stored.toJson().encode()))
        .onFailure(ctx::fail);
  }

  /**
   * The post of this key: the one it made before (done, or re-run when the request that made it failed or
   * vanished), or {@code item} when the key is new. 422 for a key reused with another post, 409 while the
   * request holding it may still be running.
   */
  private Future<OutboundItem> storeOnce(String key, OutboundItem item) {
    long poster = item.participantId();
    return claims.claim(poster, key, item, Instant.now().plus(LEASE)).recover(StoreFailure.as("cassandra"))
        .compose(claim -> {
          OutboundItem claimed = claim.item();
          if (!claimed.samePostAs(item)) {
            return Future.failedFuture(new ApiError(422, "idempotency_key_reused",
                IdempotencyKey.HEADER + " was used for another post by this participant"));
          }
          if (claim.done()) {
            return Future.succeededFuture(claimed);
          }
          if (!claim.held()) {
            return Future.failedFuture(new ApiError(409, "request_in_progress",
                "a request with this " + IdempotencyKey.HEADER + " is still running; retry after it"));
          }
          // the key's first request writes at the post's own time; a re-run later than every tombstone of an
          // earlier attempt (the first one's is at the post's time + 1, a re-run's at its own start + 1)
          long micros = claimed == item ? TimeUuids.unixMicros(item.occurred())
              : Math.max(TimeUuids.unixMicros(claimed.occurred()) + 2, System.currentTimeMillis() * 1000);
          return store(claimed, micros)
              .compose(v -> claims.markDone(poster, key, claim.leaseUntil()).recover(err -> {
                LOG.warn("post {}/{} acknowledged but its key not marked done: {}", poster, claimed.occurred(),
                    err.toString());
                return Future.succeededFuture();
              }))
              .map(claimed)
              // released before the answer, so the client's retry can run the post at once
              .recover(err -> claims.release(poster, key, claim.leaseUntil())
                  .transform(ar -> Future.<OutboundItem>failedFuture(err)));
        });
  }

  /**
   * The post's row at write timestamp micros with its pending entry (one request), then its event; the entry goes
   * once Kafka has the event (a process dying before that leaves it to the {@link Reconciler}). A failed write
   * cancels the row again; a failed publish also retracts the event (at the tombstone's timestamp) in case it
   * reached the broker.
   */
  private Future<Void> store(OutboundItem item, long micros) {
    PendingPosts.Entry entry = PendingPosts.of(item, micros);
    return repository.insert(item, micros, pending.addStatement(entry))
        .recover(err -> cancel(item, micros, err, "cassandra")
            .transform(ar -> Future.failedFuture(StoreFailure.wrap(err, "cassandra"))))
        .compose(v -> publisher.publish(item.event(micros)).recover(err -> {
          retractions.retract(new OutboundRetractedEvent(item.occurred(), item.participantId(), micros + 1));
          return cancel(item, micros, err, "kafka")
              .transform(ar -> Future.failedFuture(StoreFailure.wrap(err, "kafka")));
        }))
        .onSuccess(v -> pending.removeSoon(entry));
  }

  /**
   * The post failed, so its row must not stay or appear later: a tombstone one microsecond after the write
   * shadows it, also when the write reached Cassandra but its answer was lost. Not needed when the driver never
   * sent the write. Retried a few times within the request, then in the background (a late cancellation also
   * retracts the event: the reconciler may have published it meanwhile); if Cassandra stays away that long the row
   * may be left without fan-out, which is logged with its key and counted for an operator.
   */
  private Future<Void> cancel(OutboundItem item, long micros, Throwable cause, String failedStore) {
    if (neverSent(cause)) {
      return Future.succeededFuture();
    }
    LOG.warn("post {}/{} failed in {}, cancelling its row: {}", item.participantId(), item.occurred(), failedStore,
        cause.toString());
    return deleteWithRetry(item, micros + 1, 1, CANCEL_ATTEMPTS, CANCEL_BACKOFF_MS)
        .onSuccess(v -> cancelled.increment())
        .onFailure(err -> {
          LOG.error("post {}/{} not cancelled yet ({}), retrying in the background", item.participantId(),
              item.occurred(), err.toString());
          vertx.setTimer(LATE_CANCEL_EVERY_MS, t -> deleteWithRetry(item, micros + 1, 1, LATE_CANCEL_ATTEMPTS,
              LATE_CANCEL_EVERY_MS).onSuccess(v -> {
                cancelledLate.increment();
                retractions.retract(new OutboundRetractedEvent(item.occurred(), item.participantId(), micros + 1));
              }).onFailure(late -> {
                abandoned.increment();
                LOG.error("post {}/{} may be stored without fan-out: its cancellation failed for good: {}",
                    item.participantId(), item.occurred(), late.toString());
              }));
        });
  }

  /**
   * The driver never sent the write: no node to send it to, or every node refused the connection itself (the
   * session could not even connect). The Vert.x client may wrap the driver's exception.
   */
  static boolean neverSent(Throwable err) {
    return Causes.of(err).filter(AllNodesFailedException.class::isInstance).findFirst()
        .map(all -> ((AllNodesFailedException) all).getAllErrors().values().stream().flatMap(List::stream)
            .allMatch(
                e -> Causes.of(e).anyMatch(c -> c instanceof ConnectException || c instanceof ConnectionInitException)))
        .orElse(false);
  }

  private Future<Void> deleteWithRetry(OutboundItem item, long micros, int attempt, int attempts, long backoffMs) {
    return repository.delete(item.participantId(), item.occurred(), micros).recover(err -> {
      if (attempt >= attempts) {
        return Future.failedFuture(err);
      }
      Promise<Void> retried = Promise.promise();
      vertx.setTimer(backoffMs * attempt, t -> deleteWithRetry(item, micros, attempt + 1, attempts, backoffMs)
          .onComplete(retried));
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
