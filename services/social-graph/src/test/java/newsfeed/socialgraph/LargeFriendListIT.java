package newsfeed.socialgraph;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A participant with more friends than the cache holds (10,001, written straight into PostgreSQL): the default
 * request returns the first 10,000 with a cursor, and inbound's FriendsClient way of reading (limit=1000, follow
 * X-Next-Cursor) collects every friend exactly once, before and after the "too big to cache" marker is set. The
 * friend limit is off here (SOCIAL_GRAPH_MAX_FRIENDS=0): its default is the cache's size, and this list is larger.
 */
class LargeFriendListIT {
  private static final int FRIENDS = GraphCache.MAX_CACHED_FRIENDS + 1;
  @RegisterExtension
  static final ServiceOnStack stack = new ServiceOnStack(Map.of("SOCIAL_GRAPH_MAX_FRIENDS", "0"));

  @Test
  void moreFriendsThanTheCacheHoldsArePagedCompletely() throws Exception {
    String tag = "fan-" + UUID.randomUUID() + "-";
    long star = stack.service().createParticipant(tag + "star");
    stack.stores().rows("INSERT INTO participant (name) SELECT $1 || g FROM generate_series(1, $2::int) g",
        tag, FRIENDS);
    stack.stores().rows("""
        INSERT INTO friendship (from_id, to_id)
        SELECT $1, id FROM participant WHERE name LIKE $2 || '%' AND id <> $1
        UNION ALL
        SELECT id, $1 FROM participant WHERE name LIKE $2 || '%' AND id <> $1""", star, tag);
    assertEquals(FRIENDS, stack.stores().count("SELECT count(*) FROM friendship WHERE from_id = $1", star));

    HttpResponse<Buffer> first = stack.service().get("/participant/" + star + "/friends");
    assertEquals(200, first.statusCode(), first.bodyAsString());
    assertEquals(FriendsHandler.MAX_LIMIT, first.bodyAsJsonArray().size());
    String cursor = first.getHeader("X-Next-Cursor");
    assertNotNull(cursor);
    HttpResponse<Buffer> rest = stack.service().get("/participant/" + star + "/friends?cursor=" + cursor);
    assertEquals(1, rest.bodyAsJsonArray().size());
    assertNull(rest.getHeader("X-Next-Cursor"));
    assertTrue(stack.stores().redisGetEventually(GraphCache.friendsKey(star)).endsWith("|" + GraphCache.BIG));

    Set<Long> expected = new HashSet<>();
    stack.stores().rows("SELECT to_id FROM friendship WHERE from_id = $1", star)
        .forEach(r -> expected.add(r.getLong(0)));
    assertEquals(expected, new HashSet<>(readLikeInbound(star)), "paged from PostgreSQL behind the marker");

    // a new friend invalidates the marker too; the miss path pages the same way
    long late = stack.service().createParticipant(tag + "late");
    assertEquals(200, stack.service().befriend(late, star).statusCode());
    expected.add(late);
    List<Long> all = readLikeInbound(star);
    assertEquals(expected.size(), all.size(), "no friend twice");
    assertEquals(expected, new HashSet<>(all));
    assertEquals(List.of(star), readLikeInbound(late));
  }

  /** What services/inbound FriendsClient does: pages of 1000, following X-Next-Cursor until there is none. */
  private static List<Long> readLikeInbound(long id) {
    List<Long> ids = new ArrayList<>();
    String cursor = null;
    do {
      HttpResponse<Buffer> page = stack.service().get("/participant/" + id + "/friends?limit=1000"
          + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8)));
      assertEquals(200, page.statusCode(), page.bodyAsString());
      JsonArray rows = page.bodyAsJsonArray();
      assertTrue(rows.size() <= 1000);
      rows.forEach(o -> ids.add(SocialGraphServiceIT.idOf(((JsonObject) o).getString("to"))));
      cursor = page.getHeader("X-Next-Cursor");
    } while (cursor != null);
    return ids;
  }
}
