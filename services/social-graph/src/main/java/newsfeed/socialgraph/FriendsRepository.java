package newsfeed.socialgraph;

import io.vertx.core.Future;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowIterator;
import io.vertx.sqlclient.Tuple;
import newsfeed.common.http.ApiError;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The table `friendship`: two directed rows per friendship, (a,b) and (b,a), so "friends of X" is one range scan
 * of the unique index (from_id, to_id) and pages are ordered by to_id.
 */
public final class FriendsRepository {
  /**
   * Both directions in ONE statement (one implicit transaction). The pair is always inserted lower id first, so
   * two concurrent requests for the same pair queue on the same index entry instead of deadlocking. The result is
   * the (from,to) row: created now, or the one that already existed; `inserted` also tells when only a missing
   * reverse row was repaired.
   */
  private static final String BEFRIEND = """
      WITH ins AS (
        INSERT INTO friendship (from_id, to_id) VALUES ($3, $4), ($4, $3)
        ON CONFLICT ON CONSTRAINT friendship_pair_unique DO NOTHING
        RETURNING id, from_id)
      SELECT id, true AS created, (SELECT count(*) FROM ins) AS inserted FROM ins WHERE from_id = $1
      UNION ALL
      SELECT f.id, false, (SELECT count(*) FROM ins) FROM friendship f
      WHERE f.from_id = $1 AND f.to_id = $2 AND NOT EXISTS (SELECT 1 FROM ins WHERE ins.from_id = $1)""";
  private static final String FIND = "SELECT id FROM friendship WHERE from_id = $1 AND to_id = $2";
  private static final String PAGE =
      "SELECT id, to_id FROM friendship WHERE from_id = $1 AND to_id > $2 ORDER BY to_id LIMIT $3";
  private static final String EXISTING = "SELECT id FROM participant WHERE id = ANY($1)";
  private static final String FOREIGN_KEY_VIOLATION = "23503";

  /** The friend row and whether this call changed the table (so cached friend lists must go). */
  public record Befriended(Friend friend, boolean created, boolean changed) {
  }

  private final Postgres pg;

  public FriendsRepository(Postgres pg) {
    this.pg = pg;
  }

  public Future<Befriended> befriend(long from, long to) {
    Tuple args = Tuple.of(from, to, Math.min(from, to), Math.max(from, to));
    return pg.query(BEFRIEND, args)
        .recover(err -> isForeignKeyViolation(err) ? unknownParticipant(from, to) : Future.failedFuture(err))
        .compose(rows -> {
          RowIterator<Row> it = rows.iterator();
          if (it.hasNext()) {
            Row row = it.next();
            return Future.succeededFuture(new Befriended(new Friend(row.getLong("id"), from, to),
                row.getBoolean("created"), row.getLong("inserted") > 0));
          }
          // a concurrent request inserted the pair after this statement's snapshot: it is committed now
          return pg.query(FIND, Tuple.of(from, to)).map(found -> {
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
