package newsfeed.socialgraph;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SOCIAL_GRAPH_MAX_FRIENDS on the real PostgreSQL (3 here): a friendship that would give either end a fourth
 * friend is a 409 too_many_friends that stores nothing, an existing one is still answered, and concurrent requests
 * through two service instances (two replicas, one database) never let a participant pass the limit.
 */
class FriendLimitIT {
  private static final int LIMIT = 3;
  @RegisterExtension
  static final ServiceOnStack stack = new ServiceOnStack(Map.of("SOCIAL_GRAPH_MAX_FRIENDS", Integer.toString(LIMIT)));

  private static long participant(String what) {
    return stack.service().createParticipant("limit " + what + " " + UUID.randomUUID());
  }

  private static long rows(long id) {
    return stack.stores().count("SELECT count(*) FROM friendship WHERE from_id = $1 OR to_id = $1", id);
  }

  private static void assertTooMany(HttpResponse<Buffer> resp, long full) {
    assertEquals(409, resp.statusCode(), resp.bodyAsString());
    assertEquals("application/json", resp.getHeader("Content-Type"));
    JsonObject body = resp.bodyAsJsonObject();
    assertEquals("too_many_friends", body.getString("error"));
    assertEquals(409, body.getInteger("status"));
    assertTrue(body.getString("message").contains("participant " + full + " already has " + LIMIT + " friends"),
        body.getString("message"));
  }

  @Test
  void aFriendshipPastTheLimitOfEitherEndIs409AndStoresNothing() {
    long full = participant("full");
    for (int i = 0; i < LIMIT; i++) {
      assertEquals(200, stack.service().befriend(full, participant("friend " + i)).statusCode());
    }
    long newcomer = participant("newcomer");
    assertTooMany(stack.service().befriend(full, newcomer), full);
    assertTooMany(stack.service().befriend(newcomer, full), full);
    assertEquals(0, rows(newcomer), "neither direction was written");
    assertEquals(2L * LIMIT, rows(full));
    assertEquals(LIMIT, stack.service().get("/participant/" + full + "/friends").bodyAsJsonArray().size());
    assertEquals(0, stack.service().get("/participant/" + newcomer + "/friends").bodyAsJsonArray().size());
  }

  @Test
  void anExistingFriendshipIsStillAnsweredAtTheLimit() {
    long full = participant("full");
    long first = participant("first");
    HttpResponse<Buffer> created = stack.service().befriend(full, first);
    assertEquals(200, created.statusCode());
    for (int i = 1; i < LIMIT; i++) {
      assertEquals(200, stack.service().befriend(full, participant("friend " + i)).statusCode());
    }
    HttpResponse<Buffer> again = stack.service().befriend(first, full);
    assertEquals(200, again.statusCode(), again.bodyAsString());
    assertEquals(2L * LIMIT, rows(full));
  }

  @Test
  void unknownParticipantsAreStill404() {
    long known = participant("known");
    HttpResponse<Buffer> resp = stack.service().befriend(known, Long.MAX_VALUE - 17);
    assertEquals(404, resp.statusCode(), resp.bodyAsString());
    assertEquals("participant_not_found", resp.bodyAsJsonObject().getString("error"));
    assertTrue(resp.bodyAsJsonObject().getString("message").contains(Long.toString(Long.MAX_VALUE - 17)));
    assertEquals(0, rows(known));
  }

  @Test
  void concurrentRequestsOnTwoReplicasNeverPassTheLimit() throws Exception {
    RunningService replica = RunningService.deploy(stack.vertx(), Map.of("SOCIAL_GRAPH_MAX_FRIENDS",
        Integer.toString(LIMIT)));
    WebClient http = WebClient.create(stack.vertx());
    try {
      long hub = participant("hub");
      List<Long> fans = new ArrayList<>();
      List<Future<HttpResponse<Buffer>>> sent = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        long fan = participant("fan " + i);
        fans.add(fan);
        int port = i % 2 == 0 ? stack.service().port : replica.port;
        // half ask from the hub's side, half from the fan's: both lock the same two rows
        String path = i % 4 < 2 ? "/participant/" + fan + "/friends" : "/participant/" + hub + "/friends";
        long other = i % 4 < 2 ? hub : fan;
        sent.add(http.post(port, "127.0.0.1", path).sendJsonObject(new JsonObject().put("to", "/participant/"
            + other)));
      }
      Future.join(sent).await();
      int created = 0;
      for (Future<HttpResponse<Buffer>> f : sent) {
        HttpResponse<Buffer> resp = f.result();
        if (resp.statusCode() == 200) {
          created++;
        } else {
          assertTooMany(resp, hub);
        }
      }
      assertEquals(LIMIT, created, "exactly the limit was let through");
      assertEquals(LIMIT, stack.stores().count("SELECT count(*) FROM friendship WHERE from_id = $1", hub));
      assertEquals(LIMIT, stack.stores().count("SELECT count(*) FROM friendship WHERE to_id = $1", hub));
      long befriended = fans.stream().filter(fan -> rows(fan) == 2).count();
      assertEquals(LIMIT, befriended, "every fan has both rows or none");
      assertEquals(0, fans.stream().filter(fan -> rows(fan) != 0 && rows(fan) != 2).count());
    } finally {
      http.close();
      replica.undeploy();
    }
  }

  @Test
  void anotherLimitIsReadFromTheEnvironment() throws Exception {
    // 0 turns the limit off: the one-statement write of before
    RunningService unlimited = RunningService.deploy(stack.vertx(), Map.of("SOCIAL_GRAPH_MAX_FRIENDS", "0"));
    try {
      long full = participant("unlimited");
      for (int i = 0; i < LIMIT + 2; i++) {
        HttpResponse<Buffer> resp = unlimited.befriend(full, participant("friend " + i));
        assertEquals(200, resp.statusCode(), resp.bodyAsString());
      }
      assertEquals(2L * (LIMIT + 2), rows(full));
    } finally {
      unlimited.undeploy();
    }
  }
}
