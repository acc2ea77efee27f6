package newsfeed.common.cassandra;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.cassandra.ResultSet;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Queries whose rows all come back as one list. */
public final class Rows {
  private Rows() {
  }

  /**
   * Every row of the query (all pages), mapped. The client's collector variant streams the rows through a
   * queue with a lock and a hop per batch onto the context; a feed page is one small result page anyway.
   */
  public static <T> Future<List<T>> all(CassandraClient client, Statement<?> statement, Function<Row, T> mapper) {
    return client.execute(statement).compose(ResultSet::all).map(rows -> {
      List<T> out = new ArrayList<>(rows.size());
      for (Row row : rows) {
        out.add(mapper.apply(row));
      }
      return out;
    });
  }
}
