package newsfeed.e2e;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static newsfeed.e2e.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The classic load client's request sequence, replayed through the single API (the local gateway, GATEWAY_URL)
 * with creates in JSON, in form and in GraphQL mode (the edge service behind `POST /`): its integration test
 * (two participants, a friendship, a post with today's `occurred`, then the friend's feed and a keyword search)
 * with that test's assertions, and a round of its social broadcast (a batch of participants, random
 * friendships, ten posts per invited participant, searches). Every create must answer 200, as the classic
 * client requires; in GraphQL mode also without `errors`.
 */
class ClassicClientIT {
  private static final SecureRandom RANDOM = new SecureRandom();

  private static String word() {
    return "cl" + Long.toString(RANDOM.nextLong() & Long.MAX_VALUE, 36);
  }

  private static ClassicClient client(ClassicClient.Mode mode) {
    return new ClassicClient(OpenApiCheck.url("GATEWAY_URL"), mode);
  }

  private static boolean graphql(ClassicClient client) {
    return client.mode() == ClassicClient.Mode.GRAPHQL;
  }

  private static long createParticipant(ClassicClient client, String name) {
    if (graphql(client)) {
      // the id comes back as a GraphQL ID (a string), which the client puts into its next requests as it is
      String id = client.mutation("participant", Map.of("name", name), "{ id }")
          .getJsonObject("createParticipant").getString("id");
      assertTrue(id.matches("[1-9][0-9]*"), id);
      return Long.parseLong(id);
    }
    Object r = client.create("/participant", Map.of("name", name));
    JsonObject p = assertInstanceOf(JsonObject.class, r, "a participant object");
    assertEquals(name, p.getString("name"));
    return p.getLong("id");
  }

  private static void befriend(ClassicClient client, long from, long to) {
    if (graphql(client)) {
      Map<String, String> ids = new LinkedHashMap<>();
      ids.put("from_id", Long.toString(from));
      ids.put("to_id", Long.toString(to));
      JsonObject friend = client.mutation("friend", ids, "{ to { id } }").getJsonObject("createFriend");
      assertEquals(Long.toString(to), friend.getJsonObject("to").getString("id"));
      return;
    }
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("from", ClassicClient.link(from));
    fields.put("to", ClassicClient.link(to));
    JsonObject friend = assertInstanceOf(JsonObject.class,
        client.create("/participant/" + from + "/friends", fields));
    assertEquals(ClassicClient.link(to), friend.getString("to"));
  }

  /** The created post; in GraphQL mode only what the client asks for, `{ from { id } }`. */
  private static JsonObject post(ClassicClient client, long from, String occurred, String subject, String story) {
    if (graphql(client)) {
      Map<String, String> fields = new LinkedHashMap<>();
      fields.put("from_id", Long.toString(from));
      fields.put("occurred", occurred);
      fields.put("subject", subject);
      fields.put("story", story);
      JsonObject posted = client.mutation("outbound", fields, "{ from { id } }").getJsonObject("createOutbound");
      assertEquals(Long.toString(from), posted.getJsonObject("from").getString("id"));
      return posted;
    }
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("from", ClassicClient.link(from));
    fields.put("occurred", occurred);
    fields.put("subject", subject);
    fields.put("story", story);
    return assertInstanceOf(JsonObject.class, client.create("/participant/" + from + "/outbound", fields));
  }

  @Test
  void theClassicIntegrationTestPassesWithJsonCreates() throws Exception {
    integrationTest(ClassicClient.Mode.JSON);
  }

  @Test
  void theClassicIntegrationTestPassesWithFormCreates() throws Exception {
    integrationTest(ClassicClient.Mode.FORM);
  }

  @Test
  void theClassicIntegrationTestPassesWithGraphQl() throws Exception {
    graphQlIntegrationTest();
  }

  @Test
  void aRoundOfTheClassicSocialBroadcastIsServedWithJsonCreates() throws Exception {
    socialBroadcast(ClassicClient.Mode.JSON);
  }

  @Test
  void aRoundOfTheClassicSocialBroadcastIsServedWithFormCreates() throws Exception {
    socialBroadcast(ClassicClient.Mode.FORM);
  }

  @Test
  void aRoundOfTheClassicSocialBroadcastIsServedWithGraphQl() throws Exception {
    socialBroadcast(ClassicClient.Mode.GRAPHQL);
  }

  /** integration.clj: participants, their link, a friendship, a post, the friend's feed and the search. */
  private static void integrationTest(ClassicClient.Mode mode) throws Exception {
    try (ClassicClient client = client(mode)) {
      long joe = createParticipant(client, "joe");
      long larry = createParticipant(client, "larry");
      JsonObject fetched = (JsonObject) client.get("/participant/" + joe);
      assertEquals("joe", fetched.getString("name"));
      assertEquals("/participant/" + joe, fetched.getString("link"), "fetching participants returns the link");
      assertEquals("larry", ((JsonObject) client.get("/participant/" + larry)).getString("name"));
      befriend(client, joe, larry);

      // "test subject"/"test story" as the classic test posts; a word of this run in the story keeps the search
      // about this post on stores other tests share
      String now = LocalDate.now().toString();
      String word = word();
      JsonObject posted = post(client, joe, now, "test subject", "test story " + word);
      assertEquals(now, posted.getString("occurred"));

      JsonObject inbound = eventually(() -> {
        JsonArray feed = (JsonArray) client.get("/participant/" + larry + "/inbound");
        return feed.isEmpty() ? null : feed.getJsonObject(0);
      }, item -> item != null);
      assertEquals("test subject", inbound.getString("subject"), "social broadcast: the friend's inbound");
      assertEquals(now, inbound.getString("occurred"), "occurred logic of the social broadcast");
      assertEquals(ClassicClient.link(joe), inbound.getString("from"));
      JsonObject outbound = ((JsonArray) client.get("/participant/" + joe + "/outbound")).getJsonObject(0);
      assertEquals(now, outbound.getString("occurred"));

      JsonArray senders = eventually(() -> (JsonArray) client.get("/outbound?keywords=test+" + word),
          a -> !a.isEmpty());
      assertTrue(senders.contains("/participant/" + joe), "keyword search finds the sender: " + senders);
      JsonArray posts = (JsonArray) client.get("/outbound?posts=true&keywords=test+" + word);
      assertEquals(now, posts.getJsonObject(0).getString("occurred"), "search shows occurred as given");
    }
  }

  /**
   * integration.clj with USE_GRAPHQL=true: every request is a GraphQL document POSTed to `/`, shaped as core.clj
   * writes them (graphql-create, graphql-fetch, graphql-search), with the same checks on the `data` it reads.
   */
  private static void graphQlIntegrationTest() throws Exception {
    try (ClassicClient client = client(ClassicClient.Mode.GRAPHQL)) {
      long joe = createParticipant(client, "joe");
      long larry = createParticipant(client, "larry");
      assertEquals("joe", client.graphql("query { participant(id: " + joe + ") { name }}")
          .getJsonObject("participant").getString("name"));
      assertEquals("larry", client.graphql("query { participant(id: " + larry + ") { name }}")
          .getJsonObject("participant").getString("name"));
      befriend(client, joe, larry);
      JsonArray friends = client.graphql("query { participant(id: " + joe + ") { friends { id, name } }}")
          .getJsonObject("participant").getJsonArray("friends");
      assertEquals(new JsonArray().add(new JsonObject().put("id", Long.toString(larry)).put("name", "larry")),
          friends);
      assertTrue(client.graphql("query { participant(id: " + larry + ") { friends { id, name } }}")
          .getJsonObject("participant").getJsonArray("friends")
          .contains(new JsonObject().put("id", Long.toString(joe)).put("name", "joe")), "friendship is mutual");

      String now = LocalDate.now().toString();
      String word = word();
      post(client, joe, now, "test subject", "test story " + word);
      JsonObject inbound = eventually(() -> {
        JsonArray feed = client.graphql("query { participant(id: " + larry
            + ") { inbound { occurred, subject, story } }}").getJsonObject("participant").getJsonArray("inbound");
        return feed.isEmpty() ? null : feed.getJsonObject(0);
      }, item -> item != null);
      assertEquals(new JsonObject().put("occurred", now).put("subject", "test subject")
          .put("story", "test story " + word), inbound, "social broadcast: the friend's inbound, occurred as given");
      JsonObject outbound = client.graphql("query { participant(id: " + joe
          + ") { outbound { occurred, subject, story } }}").getJsonObject("participant").getJsonArray("outbound")
          .getJsonObject(0);
      assertEquals(inbound, outbound);

      JsonArray posters = eventually(
          () -> client.graphql("query { posters(keywords: \"test " + word + "\") { id } }").getJsonArray("posters"),
          a -> !a.isEmpty());
      assertEquals(new JsonArray().add(new JsonObject().put("id", Long.toString(joe))), posters,
          "keyword search finds the sender");
    }
  }

  /** handler.clj's run-social-broadcast and run-search, once, then what each friend and the search got. */
  private static void socialBroadcast(ClassicClient.Mode mode) throws Exception {
    // reproducible picks; the classic client's sizes
    Random random = new Random(switch (mode) { case JSON -> 11; case FORM -> 12; case GRAPHQL -> 13; });
    String now = LocalDate.now().toString();
    String word = word();
    try (ClassicClient client = client(mode)) {
      List<Long> participants = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        participants.add(createParticipant(client, "user " + random.nextInt(1_000_000)));
      }
      List<Long> inviters = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        inviters.add(participants.get(random.nextInt(10)));
      }
      List<Long> invited = new ArrayList<>();
      for (int i = 0; i < 2 + random.nextInt(2); i++) {
        invited.add(participants.get(random.nextInt(10)));
      }
      Map<Long, Set<Long>> friends = new LinkedHashMap<>();
      for (long from : inviters) {
        for (long to : invited) {
          if (from != to) {
            befriend(client, from, to);   // a pair may come twice: the existing friendship, also 200
            friends.computeIfAbsent(from, k -> new LinkedHashSet<>()).add(to);
            friends.computeIfAbsent(to, k -> new LinkedHashSet<>()).add(from);
          }
        }
      }
      Map<Long, Integer> postsBy = new LinkedHashMap<>();
      for (long from : invited) {
        for (int k = 0; k < 10; k++) {
          StringBuilder subject = new StringBuilder();
          for (int w = 0; w < 5; w++) {
            subject.append(random.nextInt(40_000)).append(' ');
          }
          StringBuilder story = new StringBuilder(word).append(' ');
          for (int w = 0; w < 150; w++) {
            story.append(random.nextInt(40_000)).append(' ');
          }
          JsonObject posted = post(client, from, now, subject.toString(), story.toString());
          if (!graphql(client)) {
            assertEquals(subject.toString(), posted.getString("subject"), "the trailing space is kept");
          }
          postsBy.merge(from, 1, Integer::sum);
        }
      }
      for (int s = 0; s < 5; s++) {
        int keyword = random.nextInt(40_000);
        if (graphql(client)) {
          assertInstanceOf(JsonArray.class,
              client.graphql("query { posters(keywords: \"" + keyword + "\") { id } }").getValue("posters"));
        } else {
          assertInstanceOf(JsonArray.class, client.get("/outbound?keywords=" + keyword));
        }
      }

      // every friend of a poster gets each of the poster's posts, with the poster's occurred
      for (Map.Entry<Long, Integer> poster : postsBy.entrySet()) {
        for (long friend : friends.getOrDefault(poster.getKey(), Set.of())) {
          String from = ClassicClient.link(poster.getKey());
          JsonArray got = eventually(() -> postsFrom(client, friend, from, word),
              a -> a.size() >= poster.getValue());
          assertEquals((int) poster.getValue(), got.size(), "friend " + friend + " gets every post of " + from);
          got.forEach(o -> assertEquals(now, ((JsonObject) o).getString("occurred")));
        }
      }
      JsonArray senders = eventually(() -> (JsonArray) client.get("/outbound?keywords=" + word),
          a -> a.size() == postsBy.size());
      for (long poster : postsBy.keySet()) {
        assertTrue(senders.contains(ClassicClient.link(poster)), "search finds " + poster + ": " + senders);
      }
    }
  }

  private static JsonArray postsFrom(ClassicClient client, long reader, String from, String word) {
    JsonArray out = new JsonArray();
    for (Object o : (JsonArray) client.get("/participant/" + reader + "/inbound?limit=100")) {
      JsonObject item = (JsonObject) o;
      if (from.equals(item.getString("from")) && item.getString("story", "").startsWith(word + " ")) {
        out.add(item);
      }
    }
    return out;
  }
}
