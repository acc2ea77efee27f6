package newsfeed.socialgraph;

import io.vertx.core.Future;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import newsfeed.common.redis.RedisStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Every cancellation, kept in Redis for any instance to take: one sorted set per subject, each member scored by
 * when it may be taken. The instance that answered 503 adds it leased to itself (due after its own tries), removes
 * it once the cancellation ended, and hands it back (due at once) when it stops or PostgreSQL did not answer it; so
 * one whose instance was killed is taken by another once the lease ran out. A taker leases it the same way. Undoing
 * twice is harmless (the second finds nothing it may delete). The key has no expiry, so Redis' volatile-ttl policy
 * never evicts it; at most about {@link #MAX} members wait (instances adding at once may pass it by a few). Plain
 * commands and WATCH/MULTI/EXEC only: the chart's Redis has Lua scripting renamed away.
 *
 * @param <W> what identifies the write to undo, written to Redis as text
 */
final class CancellationBacklog<W> {
  private static final Logger LOG = LoggerFactory.getLogger(CancellationBacklog.class);
  static final int MAX = 100_000;
  private final RedisStore redis;
  private final String key;
  private final Function<W, String> encode;
  private final Function<String, W> decode;
  private final AtomicLong size = new AtomicLong();

  /** {@code decode} reads what {@code encode} wrote, and throws on anything else. */
  CancellationBacklog(RedisStore redis, String subject, Function<W, String> encode, Function<String, W> decode) {
    this.redis = redis;
    this.key = key(subject);
    this.encode = encode;
    this.decode = decode;
  }

  /** The sorted set of a subject's cancellations. */
  static String key(String subject) {
    return GraphCache.PREFIX + "cancellations:" + subject;
  }

  /**
   * Adds {@code writes} (or moves them) to be taken from {@code dueAt} (epoch ms) on; the ones refused because
   * {@link #MAX} wait already.
   */
  Future<List<W>> add(List<W> writes, long dueAt) {
    List<String> members = writes.stream().map(encode).toList();
    Request scores = Request.cmd(Command.ZMSCORE).arg(key);
    members.forEach(scores::arg);
    return redis.batch("cancellations_add", List.of(Request.cmd(Command.ZCARD).arg(key), scores)).compose(found -> {
      List<W> absent = new ArrayList<>();
      for (int i = 0; i < writes.size(); i++) {
        if (found.get(1).get(i) == null) {
          absent.add(writes.get(i));
        }
      }
      boolean room = found.get(0).toLong() + absent.size() <= MAX;
      Request add = Request.cmd(Command.ZADD).arg(key);
      if (!room) {
        add.arg("XX");   // only the ones there already are moved
      }
      members.forEach(member -> add.arg(dueAt).arg(member));
      return redis.send("cancellations_add", add).map(added -> room ? List.<W>of() : absent);
    });
  }

  /**
   * Up to {@code atMost} members due now, each due again in {@code leaseMs}; none when another instance took from
   * the set at the same moment (WATCH): they are taken at the next call.
   */
  Future<List<W>> take(int atMost, long leaseMs) {
    long now = System.currentTimeMillis();
    return redis.transaction("cancellations_take", conn -> conn.send(Request.cmd(Command.WATCH).arg(key))
        .compose(watching -> conn.batch(List.of(Request.cmd(Command.ZCARD).arg(key),
            Request.cmd(Command.ZRANGEBYSCORE).arg(key).arg("-inf").arg(now).arg("LIMIT").arg(0).arg(atMost))))
        .compose(found -> {
          size.set(found.get(0).toLong());
          List<String> due = new ArrayList<>();
          found.get(1).forEach(member -> due.add(member.toString()));
          if (due.isEmpty()) {
            return conn.send(Request.cmd(Command.UNWATCH)).map(List.<String>of());
          }
          Request lease = Request.cmd(Command.ZADD).arg(key).arg("XX");
          due.forEach(member -> lease.arg(now + leaseMs).arg(member));
          return conn.batch(List.of(Request.cmd(Command.MULTI), lease, Request.cmd(Command.EXEC)))
              .map(done -> done.get(2) == null ? List.<String>of() : due);
        }))
        .map(this::decodeAll);
  }

  // what this service wrote; anything else is removed, as no instance could undo it
  private List<W> decodeAll(List<String> members) {
    List<W> writes = new ArrayList<>(members.size());
    for (String member : members) {
      try {
        writes.add(decode.apply(member));
      } catch (RuntimeException e) {
        LOG.error("{} in {} is no cancellation this service wrote: removed ({})", member, key, e.toString());
        remove(member);
      }
    }
    return writes;
  }

  /** Removes a member whose cancellation ended; one left there is only undone once more. */
  Future<Void> remove(W write) {
    return remove(encode.apply(write));
  }

  private Future<Void> remove(String member) {
    return redis.send("cancellations_remove", Request.cmd(Command.ZREM).arg(key).arg(member)).mapEmpty();
  }

  /** How many waited when this instance last took from it. */
  long size() {
    return size.get();
  }
}
