package newsfeed.inbound;

import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.events.OutboundRetractedEvent;

import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchStatementBuilder;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.DefaultBatchType;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import newsfeed.common.cassandra.LazyStatement;
import newsfeed.common.cassandra.Rows;
import newsfeed.common.metrics.StoreTimers;

import java.util.List;
import java.util.UUID;

/** The Cassandra table `inbound` (charts/newsfeed/files/schema/cassandra.cql): fan-out writes and feed pages. */
public final class InboundRepository {
  private static final String COLUMNS = "participant_id, occurred, from_participant_id, occurred_text, subject, story";

  private final CassandraClient client;
  private final LazyStatement insert;
  private final LazyStatement delete;
  private final LazyStatement firstPage;
  private final LazyStatement nextPage;
  private final Timer executeOk;
  private final Timer executeError;
  private final Timer batchOk;
  private final Timer batchError;
  private final Timer queryOk;
  private final Timer queryError;

  public InboundRepository(CassandraClient client, MeterRegistry registry) {
    this.client = client;
    this.insert = new LazyStatement(client, "INSERT INTO inbound (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?)");
    this.delete = new LazyStatement(client,
        "DELETE FROM inbound WHERE participant_id = ? AND occurred = ? AND from_participant_id = ?");
    this.firstPage = new LazyStatement(client, "SELECT " + COLUMNS + " FROM inbound WHERE participant_id = ? LIMIT ?");
    // one row per (participant, occurred): occurred is the post's unique timeuuid, so it alone is the cursor
    this.nextPage = new LazyStatement(client,
        "SELECT " + COLUMNS + " FROM inbound WHERE participant_id = ? AND occurred < ? LIMIT ?");
    this.executeOk = StoreTimers.timer(registry, "cassandra", "execute", "success");
    this.executeError = StoreTimers.timer(registry, "cassandra", "execute", "error");
    this.batchOk = StoreTimers.timer(registry, "cassandra", "batch", "success");
    this.batchError = StoreTimers.timer(registry, "cassandra", "batch", "error");
    this.queryOk = StoreTimers.timer(registry, "cassandra", "query", "success");
    this.queryError = StoreTimers.timer(registry, "cassandra", "query", "error");
  }

  /**
   * Writes the event into one friend's feed at the event's write timestamp; idempotent, a redelivery overwrites the
   * same row, and the row stays hidden behind a retraction's later tombstone whatever order the two arrive in.
   */
  public Future<Void> insert(long friendId, OutboundPostedEvent event) {
    return StoreTimers.time(() -> insert.get().compose(ps -> client.execute(
        row(ps, friendId, event).setQueryTimestamp(event.writtenMicros()).setIdempotent(true))),
        executeOk, executeError).mapEmpty();
  }

  /**
   * Writes the event into several friends' feeds with one request: an UNLOGGED batch (no batch log; each row is
   * its own idempotent write, so a failed batch is simply retried whole). One round trip instead of one per
   * friend saves most of Cassandra's and the driver's per-request CPU; the caller keeps batches small (a few
   * partitions, a few KiB) so the coordinator's work and Cassandra's batch-size warnings stay out of the way.
   */
  public Future<Void> insertAll(List<Long> friendIds, OutboundPostedEvent event) {
    if (friendIds.size() == 1) {
      return insert(friendIds.get(0), event);
    }
    return StoreTimers.time(() -> insert.get().compose(ps -> {
      BatchStatementBuilder batch = BatchStatement.builder(DefaultBatchType.UNLOGGED).setIdempotence(true)
          .setQueryTimestamp(event.writtenMicros());
      for (long friendId : friendIds) {
        batch.addStatement(row(ps, friendId, event));
      }
      return client.execute(batch.build());
    }), batchOk, batchError).mapEmpty();
  }

  /**
   * Removes a retracted post from the friends' feeds with tombstones at the retraction's write timestamp: one
   * UNLOGGED batch like {@link #insertAll}, idempotent, and hiding a fan-out of the post that is applied later.
   */
  public Future<Void> deleteAll(List<Long> friendIds, OutboundRetractedEvent event) {
    return StoreTimers.time(() -> delete.get().compose(ps -> {
      BatchStatementBuilder batch = BatchStatement.builder(DefaultBatchType.UNLOGGED).setIdempotence(true)
          .setQueryTimestamp(event.writtenMicros());
      for (long friendId : friendIds) {
        batch.addStatement(ps.bind(friendId, event.eventId(), event.participantId()));
      }
      return client.execute(batch.build());
    }), batchOk, batchError).mapEmpty();
  }

  private static BoundStatement row(PreparedStatement insert, long friendId, OutboundPostedEvent event) {
    return insert.bind(friendId, event.eventId(), event.participantId(), event.givenOccurred(), event.subject(),
        event.story());
  }

  /** Newest first; {@code before} (exclusive) continues after the last row of the previous page. */
  public Future<List<InboundItem>> page(long participantId, UUID before, int limit) {
    Future<BoundStatement> statement = before == null
        ? firstPage.get().map(ps -> ps.bind(participantId, limit))
        : nextPage.get().map(ps -> ps.bind(participantId, before, limit));
    return StoreTimers.time(() -> statement.compose(st -> Rows.all(client, st, InboundRepository::toItem)),
        queryOk, queryError);
  }

  /** Readiness: the cluster answers a trivial query. */
  public Future<Void> ping() {
    return client.execute("SELECT release_version FROM system.local").mapEmpty();
  }

  private static InboundItem toItem(Row row) {
    return new InboundItem(row.getLong("participant_id"), row.getUuid("occurred"),
        row.getLong("from_participant_id"), row.getString("occurred_text"), row.getString("subject"),
        row.getString("story"));
  }
}
