package newsfeed.e2e;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static newsfeed.e2e.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole system, through the four running services on real stores: participants and friendships in
 * social-graph, a post to outbound, and within a bounded wait the post in every friend's inbound exactly once
 * (via Kafka and the inbound consumer), in the poster's outbound, and findable by keyword (via the search
 * consumer and Solr).
 */
class EndToEndIT {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static Services services;

  @BeforeAll
  static void connect() {
    services = new Services();
  }

  @AfterAll
  static void close() {
    services.close();
  }

  @Test
  void everyServiceIsReady() {
    for (String base : List.of(services.socialGraph, services.outbound, services.inbound, services.search)) {
      assertEquals(200, services.get(base + "/health/ready").statusCode(), base + " /health/ready");
    }
  }

  @Test
  void aPostReachesEveryFriendOnceTheOutboundAndTheSearch() throws Exception {
    String word = "e2e" + Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36);
    long poster = services.createParticipant("poster " + word);
    long friend1 = services.createParticipant("friend one");
    long friend2 = services.createParticipant("friend two");
    long friend3 = services.createParticipant("friend three");
    long stranger = services.createParticipant("stranger");
    services.befriend(poster, friend1);
    services.befriend(poster, friend2);
    services.befriend(friend3, poster);   // friendship is mutual whoever asked

    services.post(poster, "hello " + word, "the story of " + word);

    for (long friend : List.of(friend1, friend2, friend3)) {
      JsonArray feed = eventually(() -> matching(services.inbound + "/participant/" + friend + "/inbound?limit=100",
          word), a -> !a.isEmpty());
      JsonObject item = feed.getJsonObject(0);
      assertEquals(Services.link(poster), item.getString("from"));
      assertEquals(Services.link(friend), item.getString("to"));
      assertEquals("the story of " + word, item.getString("story"));
    }

    JsonArray outbound = services.getArray(services.outbound + "/participant/" + poster + "/outbound");
    assertEquals(1, outbound.size(), outbound.encode());
    assertEquals("hello " + word, outbound.getJsonObject(0).getString("subject"));
    assertEquals(Services.link(poster), outbound.getJsonObject(0).getString("from"));

    JsonArray senders = eventually(() -> services.getArray(services.search + "/outbound?keywords=" + word),
        a -> !a.isEmpty());
    assertEquals(new JsonArray().add(Services.link(poster)), senders);
    JsonArray posts = services.getArray(services.search + "/outbound?posts=true&keywords=" + word);
    assertEquals(1, posts.size(), posts.encode());
    assertEquals("the story of " + word, posts.getJsonObject(0).getString("story"));

    // give a duplicate (a second delivery) time to show up, then insist on exactly once everywhere
    Thread.sleep(3_000);
    for (long friend : List.of(friend1, friend2, friend3)) {
      JsonArray feed = matching(services.inbound + "/participant/" + friend + "/inbound?limit=100", word);
      assertEquals(1, feed.size(), "friend " + friend + " must see the post exactly once: " + feed.encode());
    }
    assertTrue(matching(services.inbound + "/participant/" + stranger + "/inbound?limit=100", word).isEmpty(),
        "a non-friend must not see the post");
    assertTrue(matching(services.inbound + "/participant/" + poster + "/inbound?limit=100", word).isEmpty(),
        "the poster's own feed does not get the post");
    assertEquals(1, services.getArray(services.search + "/outbound?posts=true&keywords=" + word).size());
  }

  @Test
  void keywordsWithQuerySyntaxAreSearchedLiterally() {
    JsonArray all = services.getArray(services.search + "/outbound?posts=true&keywords=*:*");
    assertTrue(all.isEmpty(), "*:* must not match every post: " + all.encode());
    assertEquals(400, services.get(services.search + "/outbound?keywords=").statusCode());
    assertEquals(400, services.get(services.search + "/outbound").bodyAsJsonObject().getInteger("status"));
  }

  @Test
  void feedsOfUnknownOrInvalidParticipantsAreClearErrors() {
    assertEquals(400, services.get(services.inbound + "/participant/not-a-number/inbound").statusCode());
    assertEquals(404, services.get(services.inbound + "/participant/" + (Long.MAX_VALUE - 11) + "/inbound")
        .statusCode());
  }

  /** The items of a feed that belong to this test's unique word (other tests and load share the stores). */
  private static JsonArray matching(String url, String word) {
    JsonArray out = new JsonArray();
    for (Object o : services.getArray(url)) {
      JsonObject item = (JsonObject) o;
      if (item.getString("story", "").contains(word)) {
        out.add(item);
      }
    }
    return out;
  }
}
