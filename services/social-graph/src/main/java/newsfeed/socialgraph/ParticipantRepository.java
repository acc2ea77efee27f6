package newsfeed.socialgraph;

import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowIterator;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import newsfeed.common.http.ApiError;
import newsfeed.common.http.IdempotencyKey;

import java.util.Optional;

/** The table `participant` (charts/newsfeed/files/schema/postgresql.sql). */
public final class ParticipantRepository {
  /** How long an Idempotency-Key is remembered. */
  static final String KEY_LIFETIME = "interval '24 hours'";
  /** The id first, so a create whose answer is lost can be looked up by it. */
  private static final String NEXT_ID = "SELECT nextval(pg_get_serial_sequence('participant', 'id')) AS id";
  private static final String INSERT =
      "INSERT INTO participant (id, name) SELECT $1::bigint, $2::text WHERE " + Postgres.beforeFence(3);
  private static final String FIND = "SELECT name FROM participant WHERE id = $1";
  /**
   * A create with an Idempotency-Key: the key is claimed (a new one, or one past {@link #KEY_LIFETIME}) and the
   * participant inserted in one statement, with the same fence; a key another participant holds inserts nothing.
   * The foreign key of the claim is checked at the end of the statement, when the participant is there.
   */
  private static final String INSERT_KEYED = """
      WITH fence AS (SELECT %s AS in_time),
      claim AS (
        INSERT INTO participant_request (key, participant_id)
        SELECT $4::text, $1::bigint WHERE (SELECT in_time FROM fence)
        ON CONFLICT (key) DO UPDATE SET participant_id = EXCLUDED.participant_id, answered = false, created_at = now()
        WHERE participant_request.created_at < now() - %s
        RETURNING participant_id),
      ins AS (INSERT INTO participant (id, name) SELECT participant_id, $2::text FROM claim RETURNING id)
      SELECT fence.in_time, (SELECT count(*) FROM ins) AS created FROM fence"""
      .formatted(Postgres.beforeFence(3), KEY_LIFETIME);
  /**
   * A retry with the key gets the key's participant, marked answered: its lock on the key's row orders it with a
   * cancellation, which keeps an answered participant and deletes the key's row with one it deletes.
   */
  private static final String ADOPT = """
      UPDATE participant_request r SET answered = true FROM participant p
      WHERE r.key = $1 AND r.created_at >= now() - %s AND p.id = r.participant_id AND p.name = $2
      RETURNING r.participant_id""".formatted(KEY_LIFETIME);
  private static final String KEY_HELD =
      "SELECT 1 FROM participant_request WHERE key = $1 AND created_at >= now() - " + KEY_LIFETIME;
  private static final String PURGE_KEYS =
      "DELETE FROM participant_request WHERE created_at < now() - " + KEY_LIFETIME;
  /**
   * FOR UPDATE waits for a befriend that holds the participant (its lock, or its foreign-key check) and makes later
   * ones wait for the cancellation: the friendships are then counted by a statement that sees what the befriend
   * committed, and a befriend after the delete finds no participant (404).
   */
  private static final String LOCK = "SELECT id FROM participant WHERE id = $1 FOR UPDATE";
  /** Whether the participant is in use: befriended, or given to a retry with its key (whose row this locks). */
  private static final String IN_USE = """
      WITH keys AS (SELECT answered FROM participant_request WHERE participant_id = $1 FOR UPDATE)
      SELECT EXISTS (SELECT 1 FROM friendship WHERE from_id = $1) AS befriended,
        EXISTS (SELECT 1 FROM keys WHERE answered) AS retried""";
  private static final String DELETE = "DELETE FROM participant WHERE id = $1";

  // the key is held by another participant: the request is a retry
  private static final class KeyTaken extends RuntimeException {
    KeyTaken() {
      super(null, null, false, false);
    }
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

  /**
   * A new participant; with an Idempotency-Key ({@code key} not null) the one this key made within 24 hours when
   * there is one, 422 when that one has another name.
   */
  public Future<Participant> create(String name, String key) {
    return key == null ? insert(name, null) : insert(name, key).recover(err -> err instanceof KeyTaken
        ? adopt(name, key).recover(gone -> gone instanceof KeyTaken ? insert(name, key) : Future.failedFuture(gone))
        : Future.failedFuture(err));
  }

  private Future<Participant> insert(String name, String key) {
    return pg.query(NEXT_ID, Tuple.tuple()).compose(ids -> {
      Participant created = new Participant(ids.iterator().next().getLong("id"), name);
      return pg.write(
          fence -> key == null
              ? pg.query(INSERT, Tuple.of(created.id(), name, fence))
                  .compose(rows -> rows.rowCount() == 1 ? Future.succeededFuture(created) : Postgres.late())
              : pg.query(INSERT_KEYED, Tuple.of(created.id(), name, fence, key)).compose(rows -> {
                Row row = rows.iterator().next();
                return row.getLong("created") == 1 ? Future.succeededFuture(created)
                    : row.getBoolean("in_time") ? Future.failedFuture(new KeyTaken()) : Postgres.late();
              }),
          () -> pg.check(FIND, Tuple.of(created.id())).map(rows -> Optional.of(created).filter(p -> rows.size() > 0)))
          .recover(err -> Future.failedFuture(
              err instanceof Postgres.Unresolved ? new CreateUnresolved(created.id(), err.getCause()) : err));
    });
  }

  // the key's participant for a retry; KeyTaken when the key is free again (its participant was cancelled meanwhile)
  private Future<Participant> adopt(String name, String key) {
    return pg.query(ADOPT, Tuple.of(key, name)).compose(rows -> {
      RowIterator<Row> it = rows.iterator();
      if (it.hasNext()) {
        return Future.succeededFuture(new Participant(it.next().getLong("participant_id"), name));
      }
      return pg.query(KEY_HELD, Tuple.of(key)).compose(held -> Future.failedFuture(held.size() > 0
          ? new ApiError(422, "idempotency_key_reused", IdempotencyKey.HEADER + " was used for another participant")
          : new KeyTaken()));
    });
  }

  /** Forgets the Idempotency-Keys older than 24 hours; the number forgotten. */
  public Future<Integer> purgeKeys() {
    return pg.query(PURGE_KEYS, Tuple.tuple()).map(RowSet::rowCount);
  }

  /**
   * Undoes a create answered as failed: deletes the participant (and its key) unless a retry with its key was given
   * it, or somebody befriended it meanwhile (its id was never answered, but ids are sequential): it stays rather than
   * take away what an answered request got.
   */
  public Future<Cancelled> cancel(long id) {
    return pg.transaction(tx -> pg.query(tx, LOCK, Tuple.of(id)).compose(locked -> {
      if (locked.size() == 0) {
        return Future.succeededFuture(Cancelled.NOT_STORED);
      }
      return pg.query(tx, IN_USE, Tuple.of(id)).compose(rows -> {
        Row use = rows.iterator().next();
        return use.getBoolean("retried") ? Future.succeededFuture(Cancelled.RETRIED)
            : use.getBoolean("befriended") ? Future.succeededFuture(Cancelled.KEPT)
                : pg.query(tx, DELETE, Tuple.of(id)).map(Cancelled.DELETED);
      });
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
