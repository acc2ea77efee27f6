package newsfeed.outbound;

import newsfeed.common.cassandra.LazyStatement;
import newsfeed.common.cassandra.Rows;
import newsfeed.common.metrics.StoreTimers;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchStatementBuilder;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.DefaultBatchType;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The Cassandra table `outbound_pending` (charts/newsfeed/files/schema/cassandra.cql): a post between the write of its
 * row and the acknowledgement of its event. Written with the row and removed once Kafka has the event, an entry
 * that stays names a post whose process died in between; the {@link Reconciler} finds it by the minute it was
 * written. A minute's entries are spread over {@link #SHARDS} partitions by poster, so each read (and the
 * tombstones the removals leave in it) stays small. An entry is written in the same request as its row
 * ({@link OutboundRepository#insert}); the removals after the acknowledgements are gathered for {@link #FLUSH_MS}
 * and sent as one batch per partition, a few requests a second instead of one per post.
 */
public final class PendingPosts {
  private static final Logger LOG = LoggerFactory.getLogger(PendingPosts.class);
  static final int SHARDS = 16;
  static final long FLUSH_MS = 50;
  private static final DefaultConsistencyLevel CONSISTENCY = DefaultConsistencyLevel.LOCAL_QUORUM;

  /** One pending post: where its entry is, and the write timestamp of its row. */
  public record Entry(long minute, int shard, UUID occurred, long participantId, long writtenMicros) {
  }

  private final Vertx vertx;
  private final CassandraClient client;
  private final LazyStatement insert;
  private final LazyStatement delete;
  private final LazyStatement list;
  private final Timer ok;
  private final Timer error;
  // removals waiting for the next flush, by partition (minute, shard)
  private Map<List<Long>, List<Entry>> removals = new LinkedHashMap<>();

  public PendingPosts(Vertx vertx, CassandraClient client, MeterRegistry registry) {
    this.vertx = vertx;
    this.client = client;
    this.insert = new LazyStatement(client, "INSERT INTO outbound_pending (minute, shard, occurred, participant_id,"
        + " written) VALUES (?, ?, ?, ?, ?)");
    this.delete = new LazyStatement(client, "DELETE FROM outbound_pending WHERE minute = ? AND shard = ?"
        + " AND occurred = ? AND participant_id = ?");
    this.list = new LazyStatement(client, "SELECT minute, shard, occurred, participant_id, written"
        + " FROM outbound_pending WHERE minute = ? AND shard = ?");
    this.ok = StoreTimers.timer(registry, "cassandra", "pending", "success");
    this.error = StoreTimers.timer(registry, "cassandra", "pending", "error");
  }

  /** The entry of a post whose row is about to be written at {@code micros}, in the current minute. */
  static Entry of(OutboundItem item, long micros) {
    return new Entry(System.currentTimeMillis() / 60_000, (int) Math.floorMod(item.participantId(), SHARDS),
        item.occurred(), item.participantId(), micros);
  }

  /** The insert of the entry, for the request that writes its row too. */
  Future<BoundStatement> addStatement(Entry e) {
    return insert.get().map(ps -> ps.bind(e.minute(), e.shard(), e.occurred(), e.participantId(), e.writtenMicros()));
  }

  /** Removes the entry now (the reconciler, which waits for it). */
  public Future<Void> remove(Entry e) {
    return StoreTimers.time(() -> delete.get().compose(ps -> client.execute(ps.bind(e.minute(), e.shard(),
        e.occurred(), e.participantId()).setConsistencyLevel(CONSISTENCY).setIdempotent(true))), ok, error)
        .mapEmpty();
  }

  /**
   * Removes the entry with the next flush, gathered with the others of its partition. Not waited for: an entry
   * left behind (a failed batch, a process stopping) only makes the reconciler publish the event once more.
   */
  void removeSoon(Entry e) {
    if (removals.isEmpty()) {
      vertx.setTimer(FLUSH_MS, t -> flush());
    }
    removals.computeIfAbsent(List.of(e.minute(), (long) e.shard()), k -> new ArrayList<>()).add(e);
  }

  /** Sends the gathered removals: one UNLOGGED batch per partition, a single mutation each. */
  Future<Void> flush() {
    Map<List<Long>, List<Entry>> due = removals;
    removals = new LinkedHashMap<>();
    List<Future<Void>> batches = new ArrayList<>(due.size());
    for (List<Entry> entries : due.values()) {
      batches.add(StoreTimers.time(() -> delete.get().compose(ps -> {
        BatchStatementBuilder batch = BatchStatement.builder(DefaultBatchType.UNLOGGED).setIdempotence(true)
            .setConsistencyLevel(CONSISTENCY);
        entries.forEach(e -> batch.addStatement(ps.bind(e.minute(), e.shard(), e.occurred(), e.participantId())));
        return client.execute(batch.build());
      }), ok, error).mapEmpty());
    }
    return Future.all(batches).onFailure(err -> LOG.debug("pending entries kept for the reconciler: {}",
        err.toString())).<Void>mapEmpty().recover(err -> Future.succeededFuture());
  }

  /** The entries of one minute and shard. */
  public Future<List<Entry>> list(long minute, int shard) {
    return StoreTimers.time(() -> list.get().compose(ps -> Rows.all(client,
        ps.bind(minute, shard).setConsistencyLevel(CONSISTENCY), row -> new Entry(row.getLong("minute"),
            row.getInt("shard"), row.getUuid("occurred"), row.getLong("participant_id"), row.getLong("written")))),
        ok, error);
  }
}
