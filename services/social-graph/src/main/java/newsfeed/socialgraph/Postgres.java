package newsfeed.socialgraph;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.ClosedConnectionException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;
import io.vertx.sqlclient.Tuple;
import newsfeed.common.metrics.StoreTimers;
import newsfeed.common.logging.RateLimitedLog;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.ConnectException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The PostgreSQL pool as the repositories use it: prepared queries (cached per connection), each timed as
 * newsfeed_store_client_seconds{store="postgresql",operation="query"} and bounded so a hung database answers
 * 503 instead of holding requests forever.
 *
 * <p>Writes are answered as they ended, also when PostgreSQL's answer is lost (a timeout, a connection cut after
 * the statement went out): nothing can apply a write past a known moment, so the service waits for that moment,
 * reads whether it was applied and answers accordingly. A single statement carries a fence (its SQL compares
 * PostgreSQL's clock with it and writes nothing later, so a statement held up in the network and delivered after
 * the 503 changes nothing); a transaction's COMMIT is bounded by the connection's idle_in_transaction_session_timeout
 * (PostgreSQL ends a connection whose COMMIT is late, rolling it back). Only when PostgreSQL cannot be read for
 * {@link #RESOLVE_MS} after that moment is a write whose answer was lost answered 503 without knowing
 * ({@link Unresolved}: what it wrote is then deleted once PostgreSQL answers, {@link Cancellations}).
 */
public final class Postgres {
  static final long QUERY_TIMEOUT_MS = 5_000;
  /** A single-statement write is applied within this long of being sent, or never. */
  static final long WRITE_FENCE_MS = 3_000;
  /** PostgreSQL ends (and rolls back) a transaction left without a statement this long: a late COMMIT is refused. */
  static final long IDLE_IN_TRANSACTION_MS = 2_000;
  /** How far PostgreSQL's clock may be behind the service's (NTP keeps them much closer). */
  static final long CLOCK_SKEW_MS = 1_000;
  /**
   * How long the outcome of a write whose answer was lost is asked for, once nothing can apply it any more and the
   * service knows the answer was lost: a write's answer comes within about 9 s, below edge's 12 s for a call.
   */
  static final long RESOLVE_MS = 4_000;
  static final long CHECK_TIMEOUT_MS = 2_000;
  static final long CHECK_RETRY_MS = 250;
  /** The SQL condition of a fenced statement: true until the fence (epoch milliseconds, the parameter). */
  static String beforeFence(int param) {
    return "clock_timestamp() < 'epoch'::timestamptz + $" + param + "::bigint * interval '1 millisecond'";
  }

  private static final RateLimitedLog LOG = new RateLimitedLog(LoggerFactory.getLogger(Postgres.class), 10_000);

  private final Vertx vertx;
  private final Pool pool;
  private final Timer ok;
  private final Timer error;

  public Postgres(Vertx vertx, Pool pool, MeterRegistry registry) {
    this.vertx = vertx;
    this.pool = pool;
    this.ok = StoreTimers.timer(registry, "postgresql", "query", "success");
    this.error = StoreTimers.timer(registry, "postgresql", "query", "error");
  }

  public Future<RowSet<Row>> query(String sql, Tuple args) {
    return query(pool, sql, args);
  }

  /** A statement on {@code client}: the pool, or the connection of a {@link #transaction}. */
  public Future<RowSet<Row>> query(SqlClient client, String sql, Tuple args) {
    return query(client, sql, args, QUERY_TIMEOUT_MS);
  }

  private Future<RowSet<Row>> query(SqlClient client, String sql, Tuple args, long timeoutMs) {
    return StoreTimers.time(() -> client.preparedQuery(sql).execute(args)
        .timeout(timeoutMs, TimeUnit.MILLISECONDS), ok, error);
  }

  /** A read that tells whether a write was applied: short, as it is asked again until it answers. */
  public Future<RowSet<Row>> check(String sql, Tuple args) {
    return query(pool, sql, args, CHECK_TIMEOUT_MS);
  }

  /**
   * A write in one statement whose SQL applies nothing past the fence it is given ({@link #beforeFence}). When its
   * answer is lost, {@code applied} (the write's result if it was applied, empty if not) decides the answer.
   */
  public <T> Future<T> write(LongFunction<Future<T>> statement, Supplier<Future<Optional<T>>> applied) {
    long fence = System.currentTimeMillis() + WRITE_FENCE_MS;
    return statement.apply(fence)
        .recover(err -> lost(err) ? resolve(fence + CLOCK_SKEW_MS, applied, err) : Future.failedFuture(err));
  }

  /**
   * The statements of {@code work} in one transaction: committed when its future succeeds, else rolled back. When
   * the COMMIT's answer is lost, {@code applied} decides the answer, as for {@link #write}.
   */
  public <T> Future<T> transaction(Function<SqlConnection, Future<T>> work, Supplier<Future<Optional<T>>> applied) {
    return pool.getConnection().compose(conn -> conn.begin().timeout(QUERY_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .compose(tx -> work.apply(conn).transform(done -> done.succeeded()
            ? commit(tx, done.result())
            // no COMMIT goes out, so nothing of it is applied, whatever became of the ROLLBACK
            : tx.rollback().timeout(QUERY_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .transform(r -> Future.<T>failedFuture(done.cause()))))
        .eventually(conn::close))
        .recover(err -> err instanceof CommitUnanswered u
            ? resolve(u.settledAt, applied, u.getCause())
            : Future.failedFuture(err));
  }

  private <T> Future<T> commit(Transaction tx, T result) {
    long sentAt = System.currentTimeMillis();
    return tx.commit().timeout(QUERY_TIMEOUT_MS, TimeUnit.MILLISECONDS).transform(c -> {
      if (c.succeeded()) {
        return Future.succeededFuture(result);
      }
      // a COMMIT that reaches PostgreSQL later than the idle timeout after the last statement finds its connection ended
      return Future.failedFuture(lost(c.cause())
          ? new CommitUnanswered(sentAt + IDLE_IN_TRANSACTION_MS + CLOCK_SKEW_MS, c.cause())
          : c.cause());
    });
  }

  /**
   * Whether a failure may hide an applied write: the statement went out and no answer came (a timeout, a connection
   * closed under it). A refused connection or an error PostgreSQL answered does not.
   */
  static boolean lost(Throwable err) {
    return err instanceof TimeoutException || err instanceof ClosedConnectionException
        || (err instanceof IOException && !(err instanceof ConnectException));
  }

  // once nothing can apply the write (settledAt, epoch ms), ask whether it was applied until PostgreSQL answers
  private <T> Future<T> resolve(long settledAt, Supplier<Future<Optional<T>>> applied, Throwable lost) {
    long giveUpAt = Math.max(settledAt, System.currentTimeMillis()) + RESOLVE_MS;
    return at(settledAt).compose(v -> ask(applied, giveUpAt, lost));
  }

  private <T> Future<T> ask(Supplier<Future<Optional<T>>> applied, long giveUpAt, Throwable lost) {
    long left = giveUpAt - System.currentTimeMillis();
    return applied.get().timeout(Math.max(1, left), TimeUnit.MILLISECONDS).transform(r -> {
      if (r.succeeded()) {
        // applied: the answer it would have had; not applied: the failure it had
        return r.result().map(Future::succeededFuture).orElseGet(() -> Future.failedFuture(lost));
      }
      if (System.currentTimeMillis() + CHECK_RETRY_MS >= giveUpAt) {
        LOG.warn("unresolved", "a write whose answer was lost could not be checked for " + RESOLVE_MS
            + " ms: answered as failed without knowing whether it was applied", r.cause());
        return Future.failedFuture(new Unresolved(lost));
      }
      return at(System.currentTimeMillis() + CHECK_RETRY_MS).compose(v -> ask(applied, giveUpAt, lost));
    });
  }

  private Future<Void> at(long epochMs) {
    long delay = epochMs - System.currentTimeMillis();
    if (delay <= 0) {
      return Future.succeededFuture();
    }
    Promise<Void> due = Promise.promise();
    vertx.setTimer(delay, id -> due.complete());
    return due.future();
  }

  /** Readiness: a connection can be had and answers. */
  public Future<Void> ping() {
    return pool.query("SELECT 1").execute().mapEmpty();
  }

  /** The failure of a fenced write PostgreSQL took after its fence ({@link LateWrite}). */
  static <T> Future<T> late() {
    return Future.failedFuture(new LateWrite());
  }

  /** A write PostgreSQL took after its fence and so did not apply: a slow store, answered 503. */
  static final class LateWrite extends RuntimeException {
    LateWrite() {
      super("postgresql took the write after its fence and did not apply it", null, false, false);
    }
  }

  /**
   * A write answered as failed without knowing whether PostgreSQL applied it: its answer was lost and PostgreSQL could
   * not be read for {@link #RESOLVE_MS} after. Nothing applies it any more, so undoing what it may have written makes
   * it fail for good.
   */
  static final class Unresolved extends RuntimeException {
    Unresolved(Throwable lost) {
      super("the outcome of a write whose answer was lost could not be read", lost, false, false);
    }
  }

  // a COMMIT that went out without an answer: settled at settledAt (epoch ms)
  private static final class CommitUnanswered extends RuntimeException {
    private final long settledAt;

    CommitUnanswered(long settledAt, Throwable cause) {
      super("the COMMIT's answer was lost", cause, false, false);
      this.settledAt = settledAt;
    }
  }
}
