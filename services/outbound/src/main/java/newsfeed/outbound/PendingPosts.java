package newsfeed.outbound;

import newsfeed.common.cassandra.LazyStatement;
import newsfeed.common.cassandra.Rows;
import newsfeed.common.metrics.StoreTimers;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;

import java.util.List;
import java.util.UUID;

/**
 * The Cassandra table `outbound_pending` (charts/newsfeed/files/schema/cassandra.cql): a post between the write of its
 * row and the acknowledgement of its event. Written before the row and removed once Kafka has the event, an entry
 * that stays names a post whose process died in between; the {@link Reconciler} finds it by the minute it was
 * written. A minute's entries are spread over {@link #SHARDS} partitions by poster, so each read (and the
 * tombstones the removals leave in it) stays small.
 */
public final class PendingPosts {
  static final int SHARDS = 16;
  private static final DefaultConsistencyLevel CONSISTENCY = DefaultConsistencyLevel.LOCAL_QUORUM;

  /** One pending post: where its entry is, and the write timestamp of its row. */
  public record Entry(long minute, int shard, UUID occurred, long participantId, long writtenMicros) {
  }

  private final CassandraClient client;
  private final LazyStatement insert;
  private final LazyStatement delete;
  private final LazyStatement list;
  private final Timer ok;
  private final Timer error;

  public PendingPosts(CassandraClient client, MeterRegistry registry) {
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

  public Future<Void> add(Entry e) {
    return StoreTimers.time(() -> insert.get().compose(ps -> client.execute(ps.bind(e.minute(), e.shard(),
        e.occurred(), e.participantId(), e.writtenMicros()).setConsistencyLevel(CONSISTENCY).setIdempotent(true))),
        ok, error).mapEmpty();
  }

  public Future<Void> remove(Entry e) {
    return StoreTimers.time(() -> delete.get().compose(ps -> client.execute(ps.bind(e.minute(), e.shard(),
        e.occurred(), e.participantId()).setConsistencyLevel(CONSISTENCY).setIdempotent(true))), ok, error)
        .mapEmpty();
  }

  /** The entries of one minute and shard. */
  public Future<List<Entry>> list(long minute, int shard) {
    return StoreTimers.time(() -> list.get().compose(ps -> Rows.all(client,
        ps.bind(minute, shard).setConsistencyLevel(CONSISTENCY), row -> new Entry(row.getLong("minute"),
            row.getInt("shard"), row.getUuid("occurred"), row.getLong("participant_id"), row.getLong("written")))),
        ok, error);
  }
}
