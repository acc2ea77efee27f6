package newsfeed.inbound;

import newsfeed.common.cassandra.CassandraConfig;
import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.TestEvents;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.cassandra.CassandraClient;
import com.datastax.oss.driver.api.core.CqlSession;
import io.vertx.cassandra.CassandraClientOptions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.ContextInternal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** InboundRepository against the stack's real Cassandra keyspace. */
class InboundRepositoryIT {
  @RegisterExtension
  static final TestCassandra cassandra = new TestCassandra();

  @Test
  void writesArePagedNewestFirstAndRewritesDoNotDuplicate() throws Exception {
    long reader = TestEvents.randomParticipantId();
    long poster = reader + 1;
    List<OutboundPostedEvent> posted = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      posted.add(
          new OutboundPostedEvent(TestEvents.timeUuid(), poster, "s" + i, "story " + i, System.currentTimeMillis()));
      Thread.sleep(3);
    }
    for (OutboundPostedEvent e : posted) {
      cassandra.repository().insert(reader, e).await();
    }
    // a redelivered event writes the same key again
    cassandra.repository().insert(reader, posted.get(2)).await();
    cassandra.repository().insert(reader, posted.get(4)).await();

    List<InboundItem> first = cassandra.repository().page(reader, null, 3).await();
    assertEquals(List.of("s4", "s3", "s2"), first.stream().map(InboundItem::subject).toList());
    List<InboundItem> rest = cassandra.repository().page(reader, first.get(2).occurred(), 3).await();
    assertEquals(List.of("s1", "s0"), rest.stream().map(InboundItem::subject).toList());
    assertEquals(5, cassandra.repository().page(reader, null, 100).await().size(), "one row per event and friend");

    InboundItem row = first.get(0);
    assertEquals(reader, row.participantId());
    assertEquals(poster, row.fromParticipantId());
    assertEquals(posted.get(4).eventId(), row.occurred());
    assertEquals("/participant/" + poster, row.toJson().getString("from"));
    assertEquals("/participant/" + reader, row.toJson().getString("to"));
    assertEquals(posted.get(4).occurred().toString(), row.toJson().getString("occurred"));
    assertTrue(cassandra.repository().page(TestEvents.randomParticipantId(), null, 10).await().isEmpty());
  }

  @Test
  void cassandraOrdersAFeedAsTheFeedCachesOrderKeyDoes() {
    long reader = TestEvents.randomParticipantId();
    long poster = reader + 1;
    UUID now = TestEvents.timeUuid();
    long instant = now.timestamp();
    // posts of one 100-ns instant (their order rests on the other bytes: signed, bytes 0x80.. first) and around it
    List<UUID> ids =
        new ArrayList<>(List.of(TestEvents.timeUuidAt(instant - 1, 5), TestEvents.timeUuidAt(instant + 1, 5)));
    for (long rest : new long[] {0x8000000000000001L, 0x80000000000000FFL, 0x8000000000000080L, 0x807F000000000000L,
        0x8080000000000000L, 0xBFFFFFFFFFFFFFFFL, 0x8000000000007F00L}) {
      ids.add(new UUID(TestEvents.timeUuidAt(instant, 0).getMostSignificantBits(), rest));
    }
    for (UUID id : ids) {
      cassandra.repository().insert(reader, new OutboundPostedEvent(id, poster, id.toString(), "s", 0)).await();
    }
    List<String> stored = cassandra.repository().page(reader, null, 100).await().stream()
        .map(InboundItem::subject).toList();
    List<String> byKey = ids.stream().sorted(Comparator.comparing(FeedCache::orderKey).reversed())
        .map(UUID::toString).toList();
    assertEquals(byKey, stored);
  }

  @Test
  void aPostersOwnOccurredIsStoredAndShownAsGivenInOneRowAndInABatch() throws Exception {
    long reader = TestEvents.randomParticipantId() * 100;
    long poster = reader + 50;
    OutboundPostedEvent day = new OutboundPostedEvent(TestEvents.timeUuid(), poster, "day", "s",
        System.currentTimeMillis(), "2016-05-07");
    Thread.sleep(3);
    OutboundPostedEvent stamp = new OutboundPostedEvent(TestEvents.timeUuid(), poster, "stamp", "s",
        System.currentTimeMillis(), "2001-02-03T04:05:06.7-08:00");
    cassandra.repository().insert(reader, day).await();
    cassandra.repository().insertAll(List.of(reader, reader + 1), stamp).await();
    List<InboundItem> feed = cassandra.repository().page(reader, null, 10).await();
    assertEquals(List.of("2001-02-03T04:05:06.7-08:00", "2016-05-07"),
        feed.stream().map(i -> i.toJson().getString("occurred")).toList(), "newest first by the server's time");
    assertEquals(stamp.eventId(), feed.get(0).occurred(), "keyed and paged by the timeuuid");
    assertEquals("2001-02-03T04:05:06.7-08:00",
        cassandra.repository().page(reader + 1, null, 10).await().get(0).toJson().getString("occurred"));
  }

  @Test
  void oneBatchWritesTheEventIntoEveryFeedOnceAndARetriedBatchDoesNotDuplicate() {
    long base = TestEvents.randomParticipantId() * 100;
    List<Long> friends = List.of(base + 1, base + 2, base + 3, base + 4);
    OutboundPostedEvent event = new OutboundPostedEvent(TestEvents.timeUuid(), base, "batched", "a story",
        System.currentTimeMillis());
    cassandra.repository().insertAll(friends, event).await();
    cassandra.repository().insertAll(friends, event).await();   // a redelivery
    for (long friend : friends) {
      List<InboundItem> feed = cassandra.repository().page(friend, null, 10).await();
      assertEquals(1, feed.size(), "friend " + friend);
      assertEquals(event.eventId(), feed.get(0).occurred());
      assertEquals(base, feed.get(0).fromParticipantId());
      assertEquals("a story", feed.get(0).story());
    }
    assertTrue(cassandra.repository().page(base + 5, null, 10).await().isEmpty(), "only the listed friends");
    // a single friend goes as a plain insert
    cassandra.repository().insertAll(List.of(base + 6), event).await();
    assertEquals(1, cassandra.repository().page(base + 6, null, 10).await().size());
  }

  @Test
  void pingSucceedsAndAnUnreachableClusterFails() {
    cassandra.repository().ping().await();
    CassandraClient down = CassandraClient.create(cassandra.vertx(), TestCassandra.options("127.0.0.1:1"));
    InboundRepository unreachable = new InboundRepository(down, new SimpleMeterRegistry());
    assertThrows(Exception.class, () -> unreachable.ping().await());
    assertThrows(Exception.class, () -> unreachable.insert(1, new OutboundPostedEvent(UUID.fromString(
        "b4cc8000-a838-11ee-8080-808080808080"), 2, "", "", 0)).await());
    down.close().await();
  }

  /**
   * With ioOnEventLoop the driver's connection is on the event loop of the context that made the options, so a
   * response is handled on that thread; without it, on a driver I/O thread.
   */
  @Test
  void driverResponsesArriveOnTheEventLoopOfTheContextThatMadeTheOptions() throws Exception {
    String contactPoints = StackEnv.get("CASSANDRA_CONTACT_POINTS");
    assertTrue(respondsOnContextEventLoop(cassandra.vertx(), TestCassandra.config(contactPoints)));
    CassandraConfig c = TestCassandra.config(contactPoints);
    CassandraConfig ownThreads = new CassandraConfig(c.contactPoints(), c.localDc(), c.keyspace(), null, null, false);
    assertFalse(respondsOnContextEventLoop(cassandra.vertx(), ownThreads));
  }

  /** With NATIVE_TRANSPORT a service runs Vert.x's native transport (epoll on Linux): the driver joins that too. */
  @Test
  void onTheNativeTransportDriverResponsesArriveOnTheEventLoopToo() throws Exception {
    Vertx epoll = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    try {
      assertTrue(epoll.isNativeTransportEnabled(), "no native transport: " + epoll.unavailableNativeTransportCause());
      assertTrue(respondsOnContextEventLoop(epoll, TestCassandra.config(StackEnv.get("CASSANDRA_CONTACT_POINTS"))));
    } finally {
      epoll.close().await();
    }
  }

  private static boolean respondsOnContextEventLoop(Vertx vertx, CassandraConfig config) throws Exception {
    ContextInternal context = (ContextInternal) vertx.getOrCreateContext();
    CompletableFuture<CassandraClientOptions> options = new CompletableFuture<>();
    context.runOnContext(v -> options.complete(config.clientOptions(vertx)));
    try (CqlSession session = options.get(10, TimeUnit.SECONDS).dataStaxClusterBuilder().build()) {
      // a response that arrives before thenApply is attached runs it on this thread, which says nothing: ask again
      Thread caller = Thread.currentThread();
      for (int attempt = 0; attempt < 20; attempt++) {
        Thread responder = session.executeAsync("SELECT release_version FROM system.local")
            .thenApply(rs -> Thread.currentThread())
            .toCompletableFuture().get(10, TimeUnit.SECONDS);
        if (responder != caller) {
          return context.nettyEventLoop().inEventLoop(responder);
        }
      }
      throw new AssertionError("every response arrived before its callback was attached");
    }
  }
}
