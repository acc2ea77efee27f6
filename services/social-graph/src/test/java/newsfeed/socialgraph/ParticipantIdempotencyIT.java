package newsfeed.socialgraph;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * `POST /participant` with an Idempotency-Key on the running stack's PostgreSQL: a retry gets the participant of
 * the first request, never a second one; a key is not reused for another name and is forgotten after 24 hours.
 */
class ParticipantIdempotencyIT {
  @RegisterExtension
  static final ServiceOnStack stack = new ServiceOnStack();

  @Test
  void aRetryWithTheSameKeyGetsTheSameParticipant() {
    String key = UUID.randomUUID().toString();
    String name = "keyed " + key;
    HttpResponse<Buffer> first = stack.service().createWithKey(key, name);
    assertEquals(200, first.statusCode(), first.bodyAsString());
    HttpResponse<Buffer> retry = stack.service().createWithKey(key, name);
    assertEquals(200, retry.statusCode(), retry.bodyAsString());
    assertEquals(first.bodyAsJsonObject(), retry.bodyAsJsonObject());
    assertEquals(first.getHeader("Location"), retry.getHeader("Location"));
    assertEquals(1, stack.stores().count("SELECT count(*) FROM participant WHERE name = $1", name));
    assertEquals(1, stack.stores().count(
        "SELECT count(*) FROM participant_request WHERE key = $1 AND participant_id = $2 AND answered", key,
        first.bodyAsJsonObject().getLong("id")), "the retry marked the key answered");
    // without a key every request makes a participant, as the classic API does
    assertNotEquals(stack.service().createParticipant(name), stack.service().createParticipant(name));
  }

  @Test
  void aKeyUsedForAnotherNameIs422AndChangesNothing() {
    String key = UUID.randomUUID().toString();
    long id = stack.service().createWithKey(key, "first " + key).bodyAsJsonObject().getLong("id");
    HttpResponse<Buffer> other = stack.service().createWithKey(key, "second " + key);
    assertEquals(422, other.statusCode(), other.bodyAsString());
    assertEquals("idempotency_key_reused", other.bodyAsJsonObject().getString("error"));
    assertEquals(0, stack.stores().count("SELECT count(*) FROM participant WHERE name = $1", "second " + key));
    assertEquals(1, stack.stores().count(
        "SELECT count(*) FROM participant_request WHERE key = $1 AND participant_id = $2 AND NOT answered", key, id));
  }

  @Test
  void concurrentRequestsWithOneKeyMakeOneParticipant() throws Exception {
    String key = UUID.randomUUID().toString();
    String name = "raced " + key;
    List<CompletableFuture<HttpResponse<Buffer>>> calls = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      calls.add(CompletableFuture.supplyAsync(() -> stack.service().createWithKey(key, name)));
    }
    Set<Long> ids = new HashSet<>();
    for (CompletableFuture<HttpResponse<Buffer>> call : calls) {
      HttpResponse<Buffer> resp = call.get(30, TimeUnit.SECONDS);
      assertEquals(200, resp.statusCode(), resp.bodyAsString());
      ids.add(resp.bodyAsJsonObject().getLong("id"));
    }
    assertEquals(1, ids.size(), "every request got the same participant: " + ids);
    assertEquals(1, stack.stores().count("SELECT count(*) FROM participant WHERE name = $1", name));
  }

  @Test
  void aKeyOlderThan24HoursIsForgotten() {
    String key = UUID.randomUUID().toString();
    String name = "old key " + key;
    long first = stack.service().createWithKey(key, name).bodyAsJsonObject().getLong("id");
    ageKey(key);
    HttpResponse<Buffer> again = stack.service().createWithKey(key, name);
    assertEquals(200, again.statusCode(), again.bodyAsString());
    long second = again.bodyAsJsonObject().getLong("id");
    assertNotEquals(first, second, "an old key makes a new participant");
    assertEquals(1, stack.stores().count(
        "SELECT count(*) FROM participant_request WHERE key = $1 AND participant_id = $2", key, second));

    // the purge forgets old keys only
    String fresh = UUID.randomUUID().toString();
    stack.service().createWithKey(fresh, "fresh " + fresh);
    ageKey(key);
    ParticipantRepository rows =
        new ParticipantRepository(new Postgres(stack.vertx(), stack.stores().pg, new SimpleMeterRegistry()));
    assertTrue(rows.purgeKeys().await() >= 1);
    assertEquals(0, stack.stores().count("SELECT count(*) FROM participant_request WHERE key = $1", key));
    assertEquals(1, stack.stores().count("SELECT count(*) FROM participant_request WHERE key = $1", fresh));
    assertEquals(2, stack.stores().count("SELECT count(*) FROM participant WHERE name = $1", name),
        "forgetting a key keeps its participant");
  }

  private static void ageKey(String key) {
    stack.stores().execute("UPDATE participant_request SET created_at = now() - interval '25 hours' WHERE key = $1",
        key);
  }
}
