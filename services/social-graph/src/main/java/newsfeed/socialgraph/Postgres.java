package newsfeed.socialgraph;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import newsfeed.common.metrics.StoreTimers;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The PostgreSQL pool as the repositories use it: prepared queries (cached per connection), each timed as
 * newsfeed_store_client_seconds{store="postgresql",operation="query"} and bounded so a hung database answers
 * 503 instead of holding requests forever.
 */
public final class Postgres {
  static final long QUERY_TIMEOUT_MS = 5_000;

  private final Pool pool;
  private final Timer ok;
  private final Timer error;

  public Postgres(Pool pool, MeterRegistry registry) {
    this.pool = pool;
    this.ok = StoreTimers.timer(registry, "postgresql", "query", "success");
    this.error = StoreTimers.timer(registry, "postgresql", "query", "error");
  }

  public Future<RowSet<Row>> query(String sql, Tuple args) {
    return query(pool, sql, args);
  }

  /** A statement on {@code client}: the pool, or the connection of a {@link #transaction}. */
  public Future<RowSet<Row>> query(SqlClient client, String sql, Tuple args) {
    return StoreTimers.time(() -> client.preparedQuery(sql).execute(args)
        .timeout(QUERY_TIMEOUT_MS, TimeUnit.MILLISECONDS), ok, error);
  }

  /** The statements of {@code work} in one transaction: committed when its future succeeds, else rolled back. */
  public <T> Future<T> transaction(Function<SqlConnection, Future<T>> work) {
    return pool.withTransaction(work);
  }

  /** Readiness: a connection can be had and answers. */
  public Future<Void> ping() {
    return pool.query("SELECT 1").execute().mapEmpty();
  }
}
