package newsfeed.common.cassandra;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;

/**
 * A statement prepared on first use (Cassandra may come up after the service) and prepared again after a failed
 * attempt, so a store outage at start never leaves the service with a permanently broken statement.
 */
public final class LazyStatement {
  private final CassandraClient client;
  private final String cql;
  private Future<PreparedStatement> prepared;

  public LazyStatement(CassandraClient client, String cql) {
    this.client = client;
    this.cql = cql;
  }

  public synchronized Future<PreparedStatement> get() {
    if (prepared == null || prepared.failed()) {
      prepared = client.prepare(cql);
    }
    return prepared;
  }
}
