package newsfeed.socialgraph;

import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowIterator;
import io.vertx.sqlclient.Tuple;

import java.util.Optional;

/** The table `participant` (charts/newsfeed/files/schema/postgresql.sql). */
public final class ParticipantRepository {
  /** The id first, so a create whose answer is lost can be looked up by it. */
  private static final String NEXT_ID = "SELECT nextval(pg_get_serial_sequence('participant', 'id')) AS id";
  private static final String INSERT =
      "INSERT INTO participant (id, name) SELECT $1::bigint, $2::text WHERE " + Postgres.beforeFence(3);
  private static final String FIND = "SELECT name FROM participant WHERE id = $1";

  private final Postgres pg;

  public ParticipantRepository(Postgres pg) {
    this.pg = pg;
  }

  public Future<Participant> create(String name) {
    return pg.query(NEXT_ID, Tuple.tuple()).compose(ids -> {
      Participant created = new Participant(ids.iterator().next().getLong("id"), name);
      return pg.write(
          fence -> pg.query(INSERT, Tuple.of(created.id(), name, fence))
              .compose(rows -> rows.rowCount() == 1 ? Future.succeededFuture(created)
                  : Future.failedFuture(new Postgres.LateWrite())),
          () -> pg.check(FIND, Tuple.of(created.id())).map(rows -> Optional.of(created).filter(p -> rows.size() > 0)));
    });
  }

  /** The participant, or null when there is none with this id. */
  public Future<Participant> find(long id) {
    return pg.query(FIND, Tuple.of(id)).map(rows -> {
      RowIterator<Row> it = rows.iterator();
      return it.hasNext() ? new Participant(id, it.next().getString("name")) : null;
    });
  }
}
