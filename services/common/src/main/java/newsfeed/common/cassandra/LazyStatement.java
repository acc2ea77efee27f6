package newsfeed.common.cassandra;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;

/**
 * A statement prepared on first use (Cassandra may come up after the service) and prepared again after a failed
 * attempt, so a store outage at start never leaves the service with a permanently broken statement.
 *
 * The future handed out never belongs to another request: a completed Vert.x future runs its callbacks on the
 * context it was made on, so returning the first caller's future to every later caller would move all their work onto
 * that first request's context (and its locals, such as its trace). Prepared, it is a context-free completed future;
 * while preparing, each caller gets a promise of its own context.
 */
public final class LazyStatement {
  private final CassandraClient client;
  private final String cql;
  private Future<PreparedStatement> preparing;
  private volatile PreparedStatement prepared;

  public LazyStatement(CassandraClient client, String cql) {
    this.client = client;
    this.cql = cql;
  }

  public Future<PreparedStatement> get() {
    PreparedStatement ps = prepared;
    if (ps != null) {
      return Future.succeededFuture(ps);
    }
    Future<PreparedStatement> attempt;
    synchronized (this) {
      if (preparing == null || preparing.failed()) {
        preparing = client.prepare(cql).onSuccess(done -> prepared = done);
      }
      attempt = preparing;
    }
    ContextInternal caller = ContextInternal.current();
    Promise<PreparedStatement> mine = caller == null ? Promise.promise() : caller.promise();
    attempt.onComplete(mine);
    return mine.future();
  }
}
