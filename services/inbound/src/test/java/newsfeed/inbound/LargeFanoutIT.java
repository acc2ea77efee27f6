package newsfeed.inbound;

import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.testing.TestEvents;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A 10k-friend fan-out against the real Cassandra: every write lands, through the bounded-concurrency path the
 * consumer uses (a flood of unbounded inserts would be rejected by the driver's per-connection limit).
 */
class LargeFanoutIT {
  private static final int FRIENDS = 10_000;
  @RegisterExtension
  static final TestCassandra cassandra = new TestCassandra();

  @Test
  void tenThousandFriendsEachGetTheRowOnce() throws Exception {
    long base = TestEvents.randomParticipantId() * 100;
    List<Long> friends = new ArrayList<>(FRIENDS);
    for (int i = 0; i < FRIENDS; i++) {
      friends.add(base + i);
    }
    OutboundPostedEvent event = new OutboundPostedEvent(TestEvents.timeUuid(), base - 1, "big", "fan-out",
        System.currentTimeMillis());
    FanoutProcessor fanout =
        new FanoutProcessor(new FriendsClient(WebClient.create(cassandra.vertx()), "http://127.0.0.1:1",
            new SimpleMeterRegistry()), cassandra.repository(), FeedCache.off(), new SimpleMeterRegistry(), 4, 256, 10);

    // the limiter is single-threaded by design: drive it from the event loop like the consumer does
    Future<Integer> written = Future.<Future<Integer>>future(p -> cassandra.vertx().runOnContext(v -> p.complete(
        fanout.writeAll(friends, event)))).compose(f -> f);
    assertEquals(FRIENDS, written.await(120, TimeUnit.SECONDS));

    // and again, as a redelivery would: still one row each
    Future<Integer> again = Future.<Future<Integer>>future(p -> cassandra.vertx().runOnContext(v -> p.complete(
        fanout.writeAll(friends, event)))).compose(f -> f);
    assertEquals(FRIENDS, again.await(120, TimeUnit.SECONDS));
    for (int i = 0; i < FRIENDS; i += 997) {
      List<InboundItem> feed = cassandra.repository().page(friends.get(i), null, 10).await();
      assertEquals(1, feed.size(), "friend " + friends.get(i));
      assertEquals(event.eventId(), feed.get(0).occurred());
    }
    assertEquals(1, cassandra.repository().page(friends.get(FRIENDS - 1), null, 10).await().size());
  }
}
