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
 */
public final class FriendsRepository {
  /**
   * Both directions in ONE statement (one implicit transaction), unless PostgreSQL runs it after its fence ($5,
   * {@link Postgres#beforeFence}). The pair is always inserted lower id first, so two concurrent requests for the
   * same pair queue on the same index entry instead of deadlocking. The one row: the (from,to) row, created now or
   * the one that already existed (null when neither: a concurrent insert after this statement's snapshot, or a
   * fenced write); `inserted` also tells when only a missing reverse row was repaired; `in_time` false when fenced.
   */
  private static final String BEFRIEND = """
      WITH fence AS (SELECT %s AS in_time),
      ins AS (
        INSERT INTO friendship (from_id, to_id)
        SELECT v.from_id, v.to_id FROM (VALUES ($3::bigint, $4::bigint), ($4::bigint, $3::bigint)) AS v (from_id, to_id)
        WHERE (SELECT in_time FROM fence)
        ON CONFLICT ON CONSTRAINT friendship_pair_unique DO NOTHING
        RETURNING id, from_id),
      found AS (
        SELECT id, true AS created FROM ins WHERE from_id = $1
        UNION ALL
        SELECT f.id, false FROM friendship f
        WHERE f.from_id = $1 AND f.to_id = $2 AND NOT EXISTS (SELECT 1 FROM ins WHERE ins.from_id = $1))
      SELECT found.id, found.created, (SELECT count(*) FROM ins) AS inserted, fence.in_time
      FROM fence LEFT JOIN found ON true""".formatted(Postgres.beforeFence(5));
  private static final String FIND = "SELECT id FROM friendship WHERE from_id = $1 AND to_id = $2";
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

  private final Postgres pg;
  private final int maxFriends;

  /** {@code maxFriends}: the most friends a participant may have, 0 for no limit. */
  public FriendsRepository(Postgres pg, int maxFriends) {
    this.pg = pg;
    this.maxFriends = maxFriends;
  }

  public Future<Befriended> befriend(long from, long to) {
    Supplier<Future<Optional<Befriended>>> applied = () -> applied(from, to);
    if (maxFriends == 0) {
      // one statement, no lock: what social-graph did before it had a limit
      return pg.write(fence -> insert(pg::query, from, to, fence), applied)
          .recover(err -> isForeignKeyViolation(err) ? unknownParticipant(from, to) : Future.failedFuture(err));
    }
    return pg.transaction(tx -> pg.query(tx, LOCK, Tuple.of((Object) new Long[] {from, to}))
        .compose(locked -> locked.size() == 2 ? pg.query(tx, COUNT, Tuple.of(from, to)) : missingOf(locked, from, to))
        .compose(counts -> {
          for (Row row : counts) {
            if (!row.getBoolean("linked") && row.getLong("friends") >= maxFriends) {
              return Future.failedFuture(tooManyFriends(row.getLong("id"), row.getLong("friends")));
            }
          }
          return insert((sql, args) -> pg.query(tx, sql, args), from, to,
              System.currentTimeMillis() + Postgres.WRITE_FENCE_MS);
        }), applied);
  }

  // after a lost answer: the friendship there is the answer (this request's or an earlier one's), else not applied
  private Future<Optional<Befriended>> applied(long from, long to) {
    return pg.check(FIND, Tuple.of(from, to)).map(rows -> {
      RowIterator<Row> it = rows.iterator();
      // changed: whether this request made it cannot be known, so cached lists go as if it did
      return it.hasNext() ? Optional.of(new Befriended(new Friend(it.next().getLong("id"), from, to), false, true))
          : Optional.empty();
    });
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

  private Future<Befriended> insert(Statements db, long from, long to, long fence) {
    Tuple args = Tuple.of(from, to, Math.min(from, to), Math.max(from, to), fence);
    return db.query(BEFRIEND, args)
        .compose(rows -> {
          Row row = rows.iterator().next();
          if (row.getLong("id") != null) {
            return Future.succeededFuture(new Befriended(new Friend(row.getLong("id"), from, to),
                row.getBoolean("created"), row.getLong("inserted") > 0));
          }
          if (!row.getBoolean("in_time")) {
            return Future.failedFuture(new Postgres.LateWrite());
          }
          // a concurrent request inserted the pair after this statement's snapshot: it is committed now
          return db.query(FIND, Tuple.of(from, to)).map(found -> {
            RowIterator<Row> f = found.iterator();
            if (!f.hasNext()) {
              throw new IllegalStateException("friendship " + from + "->" + to + " neither inserted nor found");
            }
            return new Befriended(new Friend(f.next().getLong("id"), from, to), false, true);
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
