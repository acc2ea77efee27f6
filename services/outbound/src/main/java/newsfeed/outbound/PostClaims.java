package newsfeed.outbound;

import newsfeed.common.cassandra.LazyStatement;
import newsfeed.common.metrics.StoreTimers;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.Row;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.cassandra.CassandraClient;
import io.vertx.cassandra.ResultSet;
import io.vertx.core.Future;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;

/**
 * The Cassandra table `outbound_request` (charts/newsfeed/files/schema/cassandra.cql): which post an
 * Idempotency-Key made. Claims and take-overs are lightweight transactions (Paxos, LOCAL_SERIAL), so of two
 * requests racing with one key exactly one runs the post; a post without a key never touches this table.
 */
public final class PostClaims {
  private static final Logger LOG = LoggerFactory.getLogger(PostClaims.class);
  private static final DefaultConsistencyLevel CONSISTENCY = DefaultConsistencyLevel.LOCAL_QUORUM;
  private static final DefaultConsistencyLevel SERIAL = DefaultConsistencyLevel.LOCAL_SERIAL;

  /** What the key stands for, and whether this request now holds it (and so must run the post). */
  public record Claim(OutboundItem item, boolean held, boolean done, Instant leaseUntil) {
  }

  private final CassandraClient client;
  private final LazyStatement claim;
  private final LazyStatement takeOver;
  private final LazyStatement markDone;
  private final Timer ok;
  private final Timer error;

  public PostClaims(CassandraClient client, MeterRegistry registry) {
    this.client = client;
    this.claim = new LazyStatement(client, "INSERT INTO outbound_request (participant_id, idempotency_key, occurred,"
        + " occurred_text, subject, story, done, lease_until) VALUES (?, ?, ?, ?, ?, ?, false, ?) IF NOT EXISTS");
    this.takeOver = new LazyStatement(client, "UPDATE outbound_request SET lease_until = ?"
        + " WHERE participant_id = ? AND idempotency_key = ? IF done = false AND lease_until = ?");
    // conditional like the claim: a plain write's client timestamp could lose to the Paxos ones on another clock
    this.markDone = new LazyStatement(client, "UPDATE outbound_request SET done = true"
        + " WHERE participant_id = ? AND idempotency_key = ? IF lease_until = ?");
    this.ok = StoreTimers.timer(registry, "cassandra", "claim", "success");
    this.error = StoreTimers.timer(registry, "cassandra", "claim", "error");
  }

  /**
   * Claims the key for {@code item}, held until {@code leaseUntil}. When the key was claimed before, the answer
   * is that earlier claim (its post, not {@code item}), held by this request only if it took it over: the earlier
   * request neither finished nor holds it any longer.
   */
  public Future<Claim> claim(long participantId, String key, OutboundItem item, Instant leaseUntil) {
    return StoreTimers.time(() -> claim.get()
        .compose(ps -> client.execute(ps.bind(participantId, key, item.occurred(), item.givenOccurred(),
            item.subject(), item.story(), leaseUntil).setConsistencyLevel(CONSISTENCY)
            .setSerialConsistencyLevel(SERIAL)))
        .compose(rs -> {
          Row row = rs.one();
          if (row.getBoolean("[applied]")) {
            return Future.succeededFuture(new Claim(item, true, false, leaseUntil));
          }
          Claim earlier = earlier(participantId, row);
          return earlier.done() || earlier.leaseUntil().isAfter(Instant.now())
              ? Future.succeededFuture(earlier)
              : takeOver(participantId, key, earlier, leaseUntil);
        }), ok, error);
  }

  private Future<Claim> takeOver(long participantId, String key, Claim earlier, Instant leaseUntil) {
    return takeOver.get()
        .compose(ps -> client.execute(ps.bind(leaseUntil, participantId, key, earlier.leaseUntil())
            .setConsistencyLevel(CONSISTENCY).setSerialConsistencyLevel(SERIAL)))
        .map(ResultSet::one)
        .map(row -> row.getBoolean("[applied]")
            ? new Claim(earlier.item(), true, false, leaseUntil)
            : new Claim(earlier.item(), false, done(row), lease(row)));
  }

  /** The request holding the key failed: a retry may run the post again at once instead of waiting for the lease. */
  public Future<Void> release(long participantId, String key, Instant leaseUntil) {
    return takeOver.get()
        .compose(ps -> client.execute(ps.bind(Instant.now(), participantId, key, leaseUntil)
            .setConsistencyLevel(CONSISTENCY).setSerialConsistencyLevel(SERIAL)))
        .<Void>mapEmpty()
        .onFailure(
            err -> LOG.warn("key of a failed post not released (a retry waits for its lease): {}", err.toString()));
  }

  /** The post is acknowledged: a retry with its key gets it back without running anything. */
  public Future<Void> markDone(long participantId, String key, Instant leaseUntil) {
    return StoreTimers.time(() -> markDone.get().compose(ps -> client.execute(ps.bind(participantId, key, leaseUntil)
        .setConsistencyLevel(CONSISTENCY).setSerialConsistencyLevel(SERIAL))), ok, error).mapEmpty();
  }

  // a not-applied INSERT answers with the whole row as it is, a not-applied UPDATE with the columns of its condition
  private static Claim earlier(long participantId, Row row) {
    return new Claim(new OutboundItem(participantId, row.getUuid("occurred"), row.getString("occurred_text"),
        row.getString("subject"), row.getString("story")), false, done(row), lease(row));
  }

  private static boolean done(Row row) {
    return !row.isNull("done") && row.getBoolean("done");
  }

  // a take-over lost to another retry reads as still leased
  private static Instant lease(Row row) {
    return row.isNull("lease_until") ? Instant.MAX : row.getInstant("lease_until");
  }
}
