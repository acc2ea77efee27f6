package newsfeed.inbound;

import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.TestEvents;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How many inbound rows per second the stack's Cassandra takes through fan-out's own write path (FanoutProcessor's
 * bounded, batched inserts), with nothing else in the way: no Kafka, no social-graph, no feed cache. The
 * benchmark's {@code rows} step runs it (ci/bench/experiment/benchmarks.sh) to state the machine's limit that a
 * fan-out can approach.
 *
 * <p>
 * {@code RowWriteLimit ROWS WRITES:BATCH_ROWS...}: for each setting, a warm-up fan-out of ROWS / 4 rows, then a
 * line {@code measure WRITES BATCH_ROWS} (the caller starts its CPU split there), a fan-out of ROWS rows to as many
 * new participants, and a line {@code result WRITES BATCH_ROWS ROWS SECONDS ROWS_PER_S}. Stores: NEWSFEED_STACK_ENV.
 */
public final class RowWriteLimit {
  // a post of fanout.js's size: a 5-word subject and a 40-word story
  private static final String SUBJECT = "limit subject of five words";
  private static final String STORY = "word ".repeat(40).trim() + " and about three hundred bytes of story text";

  private RowWriteLimit() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: RowWriteLimit ROWS WRITES:BATCH_ROWS...");
      System.exit(2);
    }
    int rows = Integer.parseInt(args[0]);
    Vertx vertx = Vertx.vertx();
    CassandraClient client =
        CassandraClient.create(vertx, TestCassandra.options(StackEnv.get("CASSANDRA_CONTACT_POINTS")));
    InboundRepository repository = new InboundRepository(client, new SimpleMeterRegistry());
    try {
      for (int i = 1; i < args.length; i++) {
        String[] setting = args[i].split(":");
        int writes = Integer.parseInt(setting[0]);
        int batchRows = Integer.parseInt(setting[1]);
        FanoutProcessor fanout = new FanoutProcessor(
            new FriendsClient(WebClient.create(vertx), "http://127.0.0.1:1", new SimpleMeterRegistry()), repository,
            FeedCache.off(), new SimpleMeterRegistry(), 1, writes, batchRows);
        write(vertx, fanout, Math.max(1, rows / 4));
        System.out.printf("measure %d %d%n", writes, batchRows);
        System.out.flush();
        long start = System.nanoTime();
        write(vertx, fanout, rows);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("result %d %d %d %.3f %.0f%n", writes, batchRows, rows, seconds, rows / seconds);
        System.out.flush();
      }
    } finally {
      client.close().await();
      vertx.close().await();
    }
  }

  // one post's rows to `rows` participants of their own (a partition each, as a fan-out writes them)
  private static void write(Vertx vertx, FanoutProcessor fanout, int rows) throws Exception {
    long base = TestEvents.randomParticipantId() * 10_000_000L;
    List<Long> friends = new ArrayList<>(rows);
    for (int i = 0; i < rows; i++) {
      friends.add(base + i);
    }
    OutboundPostedEvent event =
        new OutboundPostedEvent(TestEvents.timeUuid(), base - 1, SUBJECT, STORY, System.currentTimeMillis());
    // the write limiter is single-threaded by design: driven from one event loop, as the consumer does
    Future<Integer> written = Future.<Future<Integer>>future(
        p -> vertx.runOnContext(v -> p.complete(fanout.writeAll(friends, event)))).compose(f -> f);
    int done = written.await(600, TimeUnit.SECONDS);
    if (done != rows) {
      throw new IllegalStateException(done + " of " + rows + " rows written");
    }
  }
}
