package newsfeed.outbound;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.DefaultBatchType;
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

/**
 * The Cassandra table `outbound` (charts/newsfeed/files/schema/cassandra.cql): a partition per participant,
 * newest post first. Writes and reads use LOCAL_QUORUM so an acknowledged post survives the loss of a replica
 * and the poster reads their own post back at once.
 */
public final class OutboundRepository {
  private static final String COLUMNS = "participant_id, occurred, occurred_text, subject, story";
  private static final DefaultConsistencyLevel CONSISTENCY = DefaultConsistencyLevel.LOCAL_QUORUM;

  private final CassandraClient client;
  private final LazyStatement insert;
  private final LazyStatement delete;
  private final LazyStatement firstPage;
  private final LazyStatement nextPage;
  private final LazyStatement one;
  private final Timer executeOk;
  private final Timer executeError;
  private final Timer deleteOk;
  private final Timer deleteError;
  private final Timer queryOk;
  private final Timer queryError;

  public OutboundRepository(CassandraClient client, MeterRegistry registry) {
    this.client = client;
    this.insert = new LazyStatement(client, "INSERT INTO outbound (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?)");
    this.delete = new LazyStatement(client, "DELETE FROM outbound WHERE participant_id = ? AND occurred = ?");
    this.firstPage = new LazyStatement(client, "SELECT " + COLUMNS + " FROM outbound WHERE participant_id = ? LIMIT ?");
    // occurred is the post's unique timeuuid, so it alone is the cursor
    this.nextPage = new LazyStatement(client,
        "SELECT " + COLUMNS + " FROM outbound WHERE participant_id = ? AND occurred < ? LIMIT ?");
    this.one = new LazyStatement(client, "SELECT " + COLUMNS + ", WRITETIME(subject) AS written FROM outbound"
        + " WHERE participant_id = ? AND occurred = ?");
    this.executeOk = StoreTimers.timer(registry, "cassandra", "execute", "success");
    this.executeError = StoreTimers.timer(registry, "cassandra", "execute", "error");
    this.deleteOk = StoreTimers.timer(registry, "cassandra", "delete", "success");
    this.deleteError = StoreTimers.timer(registry, "cassandra", "delete", "error");
    this.queryOk = StoreTimers.timer(registry, "cassandra", "query", "success");
    this.queryError = StoreTimers.timer(registry, "cassandra", "query", "error");
  }

  /**
   * Writes the post with the write timestamp {@code micros}, and {@code alongside} (its pending entry) in the same
   * request: an UNLOGGED batch, one round trip; the coordinator applies both, so a process that dies after sending it
   * leaves the entry with the row. Idempotent (same keys, same values), so the driver may retry it. The explicit
   * timestamp is what lets {@link #delete} cancel the row for good, whenever it arrives.
   */
  public Future<Void> insert(OutboundItem item, long micros, Future<BoundStatement> alongside) {
    return StoreTimers.time(() -> insert.get().compose(ps -> alongside.compose(entry -> client.execute(
        BatchStatement.builder(DefaultBatchType.UNLOGGED).setIdempotence(true).setConsistencyLevel(CONSISTENCY)
            .setQueryTimestamp(micros).addStatement(entry)
            .addStatement(ps.bind(item.participantId(), item.occurred(), item.givenOccurred(), item.subject(),
                item.story()))
            .build()))),
        executeOk, executeError).mapEmpty();
  }

  /**
   * Removes a post (the cancellation of {@link OutboundHandler}) with a tombstone at write timestamp {@code micros}:
   * it shadows every write of the row with an older timestamp, also one still on its way to a replica.
   */
  public Future<Void> delete(long participantId, UUID occurred, long micros) {
    return StoreTimers.time(() -> delete.get().compose(ps -> client.execute(ps.bind(participantId, occurred)
        .setConsistencyLevel(CONSISTENCY).setQueryTimestamp(micros).setIdempotent(true))),
        deleteOk, deleteError).mapEmpty();
  }

  /** Newest first; {@code before} (exclusive) continues after the last row of the previous page. */
  public Future<List<OutboundItem>> page(long participantId, UUID before, int limit) {
    Future<BoundStatement> statement = before == null
        ? firstPage.get().map(ps -> ps.bind(participantId, limit))
        : nextPage.get().map(ps -> ps.bind(participantId, before, limit));
    return StoreTimers.time(() -> statement.compose(st -> Rows.all(client, st.setConsistencyLevel(CONSISTENCY),
        OutboundRepository::toItem)), queryOk, queryError);
  }

  /** One post as stored, with the write timestamp of its row; null when there is none (never written, cancelled). */
  public Future<Stored> get(long participantId, UUID occurred) {
    return StoreTimers.time(() -> one.get().compose(ps -> Rows.all(client,
        ps.bind(participantId, occurred).setConsistencyLevel(CONSISTENCY),
        row -> new Stored(toItem(row), row.getLong("written")))), queryOk, queryError)
        .map(rows -> rows.isEmpty() ? null : rows.get(0));
  }

  /** A post and the write timestamp of its row. */
  public record Stored(OutboundItem item, long writtenMicros) {
  }

  /** Readiness: the cluster answers a trivial query. */
  public Future<Void> ping() {
    return client.execute("SELECT release_version FROM system.local").mapEmpty();
  }

  private static OutboundItem toItem(Row row) {
    return new OutboundItem(row.getLong("participant_id"), row.getUuid("occurred"), row.getString("occurred_text"),
        row.getString("subject"), row.getString("story"));
  }
}
