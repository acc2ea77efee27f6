package newsfeed.socialgraph;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import newsfeed.common.redis.RedisStore;
import newsfeed.common.testing.StackEnv;

import java.util.ArrayList;
import java.util.List;

/** Direct access to the stack's PostgreSQL and Redis, for tests to check what was (not) stored. */
final class Stores implements AutoCloseable {
  final Pool pg;
  final Redis redis;

  Stores(Vertx vertx) {
    pg = PgBuilder.pool().connectingTo(new PgConnectOptions().setHost(StackEnv.get("PG_HOST"))
        .setPort(Integer.parseInt(StackEnv.get("PG_PORT"))).setDatabase(StackEnv.get("PG_DATABASE"))
        .setUser(StackEnv.get("PG_USER")).setPassword(StackEnv.get("PG_PASSWORD")))
        .using(vertx).build();
    redis = Redis.createClient(vertx, StackEnv.get("REDIS_URL"));
  }

  long count(String sql, Object... args) {
    return pg.preparedQuery(sql).execute(Tuple.from(args)).await().iterator().next().getLong(0);
  }

  /** A write of the test's own, straight to PostgreSQL. */
  void execute(String sql, Object... args) {
    pg.preparedQuery(sql).execute(Tuple.from(args)).await();
  }

  List<Row> rows(String sql, Object... args) {
    List<Row> rows = new ArrayList<>();
    pg.preparedQuery(sql).execute(Tuple.from(args)).await().forEach(rows::add);
    return rows;
  }

  /** A Redis value as a string, null when the key does not exist. */
  String redisGet(String key) {
    return RedisStore.string(redis.send(Request.cmd(Command.GET).arg(key)).await());
  }

  /**
   * The value once it is there (up to 5 s), else null: the service fills the cache after it answered, so a test
   * that reads Redis right after a response must give the fill a moment.
   */
  String redisGetEventually(String key) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 5_000;
    String value = redisGet(key);
    while (value == null && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
      value = redisGet(key);
    }
    return value;
  }

  @Override
  public void close() {
    pg.close().await();
    redis.close().await();
  }
}
