package newsfeed.socialgraph;

import io.vertx.core.Future;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowIterator;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import newsfeed.common.http.ApiError;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * The table `friendship`: two directed rows per friendship, (a,b) and (b,a), so "friends of X" is one range scan
 * of the unique index (from_id, to_id) and pages are ordered by to_id.
 *
 * <p>With a friend limit (SOCIAL_GRAPH_MAX_FRIENDS, not 0) a new friendship is written in a transaction that first
 * locks both participants' rows, then counts their friends, then inserts: every befriend of a participant takes the
 * same lock, so concurrent requests (on any replica) are counted one after the other and nobody ever passes the
 * limit through the API. A friendship that would is answered 409 too_many_friends and nothing is written. Asking
 * again for an existing friendship is answered as before, whatever the counts.
 *
 * <p>A befriend answered 503 without knowing whether its rows were stored is undone once PostgreSQL answers
 * ({@link #cancel}): its rows carry a random number of the request (inserted_by) until another request is answered
 * with them, which marks them answered (NULL) first, so only rows no client was answered with are deleted.
 */
public final class FriendsRepository {
  /**
   * Both directions in ONE statement (one implicit transaction), unless PostgreSQL runs it after its fence ($5,
   * {@link Postgres#beforeFence}). The pair is always inserted lower id first, so two concurrent requests for the
   * same pair queue on the same index entry instead of deadlocking. The rows carry the request's number ($6) until
   * another request is answered with them ({@link #CONFIRM}). The one row: the (from,to) row, created now or the one
   * that already existed (null when neither: a concurrent insert after this statement's snapshot, or a fenced
   * write); `inserted` also tells when only a missing reverse row was repaired; `unconfirmed` whether a row of the
   * pair still carries another request's number; `in_time` false when fenced.
   */
  private static final String BEFRIEND = """
      WITH fence AS (SELECT %s AS in_time),
      ins AS (
        INSERT INTO friendship (from_id, to_id, inserted_by)
        SELECT v.from_id, v.to_id, $6::bigint
        FROM (VALUES ($3::bigint, $4::bigint), ($4::bigint, $3::bigint)) AS v (from_id, to_id)
        WHERE (SELECT in_time FROM fence)
        ON CONFLICT ON CONSTRAINT friendship_pair_unique DO NOTHING
        RETURNING id, from_id),
      found AS (
        SELECT id, true AS created FROM ins WHERE from_id = $1
        UNION ALL
        SELECT f.id, false FROM friendship f
        WHERE f.from_id = $1 AND f.to_id = $2 AND NOT EXISTS (SELECT 1 FROM ins WHERE ins.from_id = $1))
      SELECT found.id, found.created, (SELECT count(*) FROM ins) AS inserted, fence.in_time,
        EXISTS (SELECT 1 FROM friendship f
                WHERE (f.from_id, f.to_id) IN (($1, $2), ($2, $1)) AND f.inserted_by <> $6) AS unconfirmed
      FROM fence LEFT JOIN found ON true""".formatted(Postgres.beforeFence(5));
  /**
   * The pair's rows, locked (lower id first, as they are inserted and cancelled) and marked answered (inserted_by
   * NULL): a cancellation of the request that inserted them then keeps them. Fenced ($3) like the insert. The id:
   * the (from,to) row, null when it is gone (a cancellation deleted it meanwhile: the request inserts it again) or
   * not yet visible.
   */
  private static final String CONFIRM = """
      WITH fence AS (SELECT %s AS in_time),
      locked AS (
        SELECT id, from_id, inserted_by FROM friendship
        WHERE (from_id, to_id) IN (($1, $2), ($2, $1)) AND (SELECT in_time FROM fence)
        ORDER BY from_id FOR UPDATE),
      confirmed AS (
        UPDATE friendship f SET inserted_by = NULL FROM locked
        WHERE f.id = locked.id AND locked.inserted_by IS NOT NULL)
      SELECT fence.in_time, (SELECT id FROM locked WHERE from_id = $1) AS id FROM fence"""
      .formatted(Postgres.beforeFence(3));
  /** The (from,to) row when this request ($3) inserted it or a request was answered with it. */
  private static final String ANSWERED = """
      SELECT id FROM friendship
      WHERE from_id = $1 AND to_id = $2 AND (inserted_by IS NULL OR inserted_by = $3)""";
  /**
   * Undoes a befriend answered 503: deletes the pair's rows that carry its number ($3), so none that another
   * request was answered with; locks in the order of {@link #CONFIRM}, which waits for it or is waited for.
   */
  private static final String UNDO = """
      WITH locked AS (
        SELECT id FROM friendship WHERE (from_id, to_id) IN (($1, $2), ($2, $1)) ORDER BY from_id FOR UPDATE),
      gone AS (DELETE FROM friendship f USING locked WHERE f.id = locked.id AND f.inserted_by = $3 RETURNING f.id)
      SELECT count(*) AS deleted FROM gone""";
  /** How often a befriend inserts again when a cancellation deleted the rows it found (once is the most seen). */
  private static final int MAX_INSERTS = 3;
  /**
   * Both participants, locked against every other befriend of either until the transaction ends; in id order, so
   * two requests take their locks in the same order and never deadlock. NO KEY UPDATE leaves the foreign-key
   * checks of other inserts (KEY SHARE) free.
   */
  private static final String LOCK = "SELECT id FROM participant WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE";
  /**
   * Each participant's friends now (a statement after the lock sees every friendship committed before it) and
   * whether the other one is among them already (then this request adds no friend to it).
   */
  private static final String COUNT = """
      SELECT p.id, (SELECT count(*) FROM friendship f WHERE f.from_id = p.id) AS friends,
        EXISTS (SELECT 1 FROM friendship f
                WHERE f.from_id = p.id AND f.to_id = CASE WHEN p.id = $1 THEN $2 ELSE $1 END) AS linked
      FROM participant p WHERE p.id IN ($1, $2)""";
  private static final String PAGE =
      "SELECT id, to_id FROM friendship WHERE from_id = $1 AND to_id > $2 ORDER BY to_id LIMIT $3";
  private static final String EXISTING = "SELECT id FROM participant WHERE id = ANY($1)";
  private static final String FOREIGN_KEY_VIOLATION = "23503";

  /** The friend row and whether this call changed the table (so cached friend lists must go). */
  public record Befriended(Friend friend, boolean created, boolean changed) {
  }

  /** A befriend's write: the pair, and the random number its rows carry until a request is answered with them. */
  public record Befriending(long from, long to, long request) {
    @Override
    public String toString() {
      return from + "-" + to + " (inserted_by " + request + ")";
    }

    /** As the cancellation backlog keeps it: {@code from:to:request}. */
    String encode() {
      return from + ":" + to + ":" + request;
    }

    /** What {@link #encode} wrote; IllegalArgumentException on anything else. */
    static Befriending decode(String text) {
      String[] parts = text.split(":", -1);
      if (parts.length != 3) {
        throw new IllegalArgumentException("not from:to:request: " + text);
      }
      return new Befriending(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
    }
  }

  /** A befriend answered as failed without knowing whether its rows were stored. */
  public static final class BefriendUnresolved extends RuntimeException {
    private final Befriending write;

    BefriendUnresolved(Befriending write, Throwable cause) {
      super("friendship " + write + " may have been stored", cause, false, false);
      this.write = write;
    }

    public Befriending write() {
      return write;
    }
  }

  private final Postgres pg;
  private final int maxFriends;

  /** {@code maxFriends}: the most friends a participant may have, 0 for no limit. */
  public FriendsRepository(Postgres pg, int maxFriends) {
    this.pg = pg;
    this.maxFriends = maxFriends;
  }

  /** The friendship, made unless it exists; {@link BefriendUnresolved} when its outcome could not be known. */
  public Future<Befriended> befriend(long from, long to) {
    Befriending write = new Befriending(from, to, ThreadLocalRandom.current().nextLong());
    Supplier<Future<Optional<Befriended>>> applied = () -> applied(write);
    Future<Befriended> done;
    if (maxFriends == 0) {
      // one statement, no lock: what social-graph did before it had a limit
      done = pg.write(fence -> insert(pg::query, write, fence, 1), applied)
          .recover(err -> isForeignKeyViolation(err) ? unknownParticipant(from, to) : Future.failedFuture(err));
    } else {
      done = pg.transaction(tx -> pg.query(tx, LOCK, Tuple.of((Object) new Long[] {from, to}))
          .compose(locked -> locked.size() == 2 ? pg.query(tx, COUNT, Tuple.of(from, to)) : missingOf(locked, from, to))
          .compose(counts -> {
            for (Row row : counts) {
              if (!row.getBoolean("linked") && row.getLong("friends") >= maxFriends) {
                return Future.failedFuture(tooManyFriends(row.getLong("id"), row.getLong("friends")));
              }
            }
            return insert((sql, args) -> pg.query(tx, sql, args), write,
                System.currentTimeMillis() + Postgres.WRITE_FENCE_MS, 1);
          }), applied);
    }
    return done.recover(err -> Future.failedFuture(
        err instanceof Postgres.Unresolved ? new BefriendUnresolved(write, err.getCause()) : err));
  }

  // after a lost answer: applied when the friendship is there with this request's rows or answered ones; rows that
  // another request inserted and nobody was answered with were not confirmed by this one (its CONFIRM did not apply)
  private Future<Optional<Befriended>> applied(Befriending write) {
    return pg.check(ANSWERED, Tuple.of(write.from(), write.to(), write.request())).map(rows -> {
      RowIterator<Row> it = rows.iterator();
      // changed: whether this request made it cannot be known, so cached lists go as if it did
      return it.hasNext()
          ? Optional.of(new Befriended(new Friend(it.next().getLong("id"), write.from(), write.to()), false, true))
          : Optional.empty();
    });
  }

  /**
   * Undoes a befriend answered 503: deletes the rows it inserted, unless a request was answered with them meanwhile.
   */
  public Future<Cancelled> cancel(Befriending write) {
    return pg.query(UNDO, Tuple.of(write.from(), write.to(), write.request()))
        .map(rows -> rows.iterator().next().getLong("deleted") > 0 ? Cancelled.DELETED : Cancelled.NOT_STORED);
  }

  /** A statement runner: the pool's, or a transaction's. */
  private interface Statements {
    Future<RowSet<Row>> query(String sql, Tuple args);
  }

  private ApiError tooManyFriends(long id, long friends) {
    return new ApiError(409, "too_many_friends", "participant " + id + " already has " + friends
        + " friends, the most one may have (" + maxFriends + ")");
  }

  // the lock found fewer than two participants: name the one missing in the 404
  private static <T> Future<T> missingOf(RowSet<Row> locked, long from, long to) {
    Set<Long> existing = new HashSet<>();
    locked.forEach(r -> existing.add(r.getLong("id")));
    return Future.failedFuture(ApiError.participantNotFound(existing.contains(from) ? to : from));
  }

  private Future<Befriended> insert(Statements db, Befriending write, long fence, int attempt) {
    long from = write.from();
    long to = write.to();
    Tuple args = Tuple.of(from, to, Math.min(from, to), Math.max(from, to), fence, write.request());
    return db.query(BEFRIEND, args).compose(rows -> {
      Row row = rows.iterator().next();
      Long id = row.getLong("id");
      boolean inserted = row.getLong("inserted") > 0;
      if (id != null && !row.getBoolean("unconfirmed")) {
        return Future.succeededFuture(new Befriended(new Friend(id, from, to), row.getBoolean("created"), inserted));
      }
      if (!row.getBoolean("in_time")) {
        return Postgres.late();
      }
      // rows another request inserted (maybe after this statement's snapshot), which a cancellation of that request
      // would delete: this answer makes them answered first
      return db.query(CONFIRM, Tuple.of(from, to, fence)).compose(confirmed -> {
        Row c = confirmed.iterator().next();
        if (!c.getBoolean("in_time")) {
          return Postgres.late();
        }
        if (c.getLong("id") != null) {
          boolean created = id != null && row.getBoolean("created");
          return Future.succeededFuture(new Befriended(new Friend(c.getLong("id"), from, to), created, true));
        }
        if (attempt == MAX_INSERTS) {
          return Future.failedFuture(new IllegalStateException(
              "friendship " + write + " deleted by a cancellation " + attempt + " times while being befriended"));
        }
        return insert(db, write, fence, attempt + 1);   // a cancellation deleted them meanwhile
      });
    });
  }

  /** Up to {@code limit} friends whose id is greater than {@code afterId}, ordered by friend id. */
  public Future<List<Friend>> page(long participantId, long afterId, int limit) {
    return pg.query(PAGE, Tuple.of(participantId, afterId, limit)).map(rows -> {
      List<Friend> friends = new ArrayList<>(rows.size());
      for (Row row : rows) {
        friends.add(new Friend(row.getLong("id"), participantId, row.getLong("to_id")));
      }
      return friends;
    });
  }

  private static boolean isForeignKeyViolation(Throwable err) {
    return err instanceof PgException pg && FOREIGN_KEY_VIOLATION.equals(pg.getSqlState());
  }

  // the foreign key says one end is missing; name it in the 404
  private <T> Future<T> unknownParticipant(long from, long to) {
    return pg.query(EXISTING, Tuple.of((Object) new Long[] {from, to})).compose(rows -> {
      Set<Long> existing = new HashSet<>();
      rows.forEach(r -> existing.add(r.getLong("id")));
      long missing = existing.contains(from) ? to : from;
      return Future.failedFuture(ApiError.participantNotFound(missing));
    });
  }
}
