package newsfeed.socialgraph;

import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowIterator;
import io.vertx.sqlclient.Tuple;

/** The table `participant` (charts/newsfeed/files/schema/postgresql.sql). */
public final class ParticipantRepository {
  private static final String INSERT = "INSERT INTO participant (name) VALUES ($1) RETURNING id";
  private static final String FIND = "SELECT name FROM participant WHERE id = $1";

  private final Postgres pg;

  public ParticipantRepository(Postgres pg) {
    this.pg = pg;
  }

  public Future<Participant> create(String name) {
    return pg.query(INSERT, Tuple.of(name)).map(rows -> new Participant(rows.iterator().next().getLong("id"), name));
  }

  /** The participant, or null when there is none with this id. */
  public Future<Participant> find(long id) {
    return pg.query(FIND, Tuple.of(id)).map(rows -> {
      RowIterator<Row> it = rows.iterator();
      return it.hasNext() ? new Participant(id, it.next().getString("name")) : null;
    });
  }
}
