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
  /**
   * FOR UPDATE waits for a befriend that holds the participant (its lock, or its foreign-key check) and makes later
   * ones wait for the cancellation: the friendships are then counted by a statement that sees what the befriend
   * committed, and a befriend after the delete finds no participant (404).
   */
  private static final String LOCK = "SELECT id FROM participant WHERE id = $1 FOR UPDATE";
  private static final String BEFRIENDED = "SELECT EXISTS (SELECT 1 FROM friendship WHERE from_id = $1) AS used";
  private static final String DELETE = "DELETE FROM participant WHERE id = $1";

  /** What cancelling a create found: it deleted the participant, there was none, or it was kept. */
  public enum Cancelled {
    DELETED, NOT_STORED, KEPT
  }

  /** A create answered as failed without knowing whether the participant was stored: the id it would have. */
  public static final class CreateUnresolved extends RuntimeException {
    private final long id;

    CreateUnresolved(long id, Throwable cause) {
      super("participant " + id + " may have been stored", cause, false, false);
      this.id = id;
    }

    public long id() {
      return id;
    }
  }

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
          () -> pg.check(FIND, Tuple.of(created.id())).map(rows -> Optional.of(created).filter(p -> rows.size() > 0)))
          .recover(err -> Future.failedFuture(
              err instanceof Postgres.Unresolved ? new CreateUnresolved(created.id(), err.getCause()) : err));
    });
  }

  /**
   * Undoes a create answered as failed: deletes the participant unless somebody befriended it meanwhile (its id was
   * never answered, but ids are sequential), which keeps it rather than take a friendship from an answered request.
   */
  public Future<Cancelled> cancel(long id) {
    return pg.transaction(tx -> pg.query(tx, LOCK, Tuple.of(id)).compose(locked -> {
      if (locked.size() == 0) {
        return Future.succeededFuture(Cancelled.NOT_STORED);
      }
      return pg.query(tx, BEFRIENDED, Tuple.of(id)).compose(used -> used.iterator().next().getBoolean("used")
          ? Future.succeededFuture(Cancelled.KEPT)
          : pg.query(tx, DELETE, Tuple.of(id)).map(Cancelled.DELETED));
    }), () -> pg.check(FIND, Tuple.of(id))   // a COMMIT whose answer is lost: gone, or tried again
        .map(rows -> rows.size() == 0 ? Optional.of(Cancelled.DELETED) : Optional.empty()));
  }

  /** The participant, or null when there is none with this id. */
  public Future<Participant> find(long id) {
    return pg.query(FIND, Tuple.of(id)).map(rows -> {
      RowIterator<Row> it = rows.iterator();
      return it.hasNext() ? new Participant(id, it.next().getString("name")) : null;
    });
  }
}
