package newsfeed.socialgraph;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.sqlclient.Row;
import newsfeed.common.redis.RedisStore;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.TcpRelay;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static newsfeed.common.testing.Waiting.eventually;
import static newsfeed.common.testing.Waiting.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writes whose PostgreSQL answer is lost, through a relay the test controls: PostgreSQL does the work, its answer
 * is held and then the connections are cut (the service times out first), or the request itself is held past the
 * service's answer and delivered afterwards. Whatever the service answers is what PostgreSQL holds, then and later:
 * a 200 only for what is stored, a 503 only for what never will be. When PostgreSQL stays unreadable past the
 * service's checks, a participant or friendship answered 503 is deleted once it answers again.
 */
class LostAnswersIT {
  private static Vertx vertx;
  private static Stores stores;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    stores = new Stores(vertx);
  }

  @AfterAll
  static void stop() {
    if (stores != null) {
      stores.close();
    }
    if (vertx != null) {
      vertx.close().await();
    }
  }

  @Test
  void aCreateWhoseAnswerIsLostIsAnsweredAsStored() throws Exception {
    withRelay(Map.of(), (relay, service) -> {
      String name = "answer lost " + UUID.randomUUID();
      relay.holdAnswersFrom(name.getBytes(StandardCharsets.UTF_8));
      HttpResponse<Buffer> resp = cutAfter(relay, 6_000,
          () -> service.post("/participant", new JsonObject().put("name", name)));
      assertEquals(200, resp.statusCode(), resp.bodyAsString());
      assertEquals(1, stores.count("SELECT count(*) FROM participant WHERE name = $1 AND id = $2", name,
          resp.bodyAsJsonObject().getLong("id")), "stored under the id it was answered with");
    });
  }

  @Test
  void aCreateLeftUnresolvedIsDeletedOncePostgresAnswers() throws Exception {
    withRelay(Map.of(), (relay, service) -> {
      String name = "unresolved " + UUID.randomUUID();
      long id = unresolvedCreate(relay, service, name);
      // in Redis too, leased to this instance past its 5 minutes of tries: another takes it should this one die
      eventually(() -> backlogDue("participant", Long.toString(id)), due -> due > System.currentTimeMillis() + 300_000);
      relay.cut();   // PostgreSQL answers again
      eventually(() -> stores.count("SELECT count(*) FROM participant WHERE id = $1", id), n -> n == 0);
      assertEquals(404, service.get("/participant/" + id).statusCode());
      assertEquals(1, service.metric(cancellations("participant", "cancelled")));
      eventually(() -> backlogDue("participant", Long.toString(id)), due -> due == 0);
    });
  }

  @Test
  void aCreateLeftUnresolvedAndBefriendedMeanwhileIsKept() throws Exception {
    withRelay(Map.of(), (relay, service) -> {
      long friend = service.createParticipant("befriends an unanswered id");
      String name = "unresolved, then befriended " + UUID.randomUUID();
      long id = unresolvedCreate(relay, service, name);
      // somebody guessed the id: deleting the participant would take a friendship answered 200 with it
      stores.execute("INSERT INTO friendship (from_id, to_id) VALUES ($1, $2), ($2, $1)", id, friend);
      relay.cut();
      eventually(() -> service.metric(cancellations("participant", "kept")), n -> n == 1);
      assertEquals(1, stores.count("SELECT count(*) FROM participant WHERE id = $1", id), "kept");
      assertEquals(2, friendships(id, friend));
    });
  }

  @Test
  void aCreateLeftUnresolvedStaysWhenARetryWithItsKeyGotIt() throws Exception {
    withRelay(Map.of(), (relay, service) -> {
      String key = UUID.randomUUID().toString();
      String name = "unresolved, then retried " + key;
      long id = unresolvedCreate(relay, service, name, () -> service.createWithKey(key, name));
      // another instance answered the retry with it meanwhile (this one's PostgreSQL answers are still held)
      stores.execute("UPDATE participant_request SET answered = true WHERE key = $1 AND participant_id = $2", key, id);
      relay.cut();
      eventually(() -> service.metric(cancellations("participant", "retried")), n -> n == 1);
      assertEquals(1, stores.count("SELECT count(*) FROM participant WHERE id = $1", id), "kept");
      HttpResponse<Buffer> again = service.createWithKey(key, name);
      assertEquals(id, again.bodyAsJsonObject().getLong("id"), again.bodyAsString());
    });
  }

  @Test
  void aRetryAfterItsCreateWasCancelledMakesItAgain() throws Exception {
    withRelay(Map.of(), (relay, service) -> {
      String key = UUID.randomUUID().toString();
      String name = "unresolved, cancelled, retried " + key;
      long id = unresolvedCreate(relay, service, name, () -> service.createWithKey(key, name));
      relay.cut();
      eventually(() -> stores.count("SELECT count(*) FROM participant WHERE id = $1", id), n -> n == 0);
      assertEquals(0, stores.count("SELECT count(*) FROM participant_request WHERE key = $1", key), "key freed");
      HttpResponse<Buffer> retry = service.createWithKey(key, name);
      assertEquals(200, retry.statusCode(), retry.bodyAsString());
      assertEquals(1, stores.count("SELECT count(*) FROM participant WHERE name = $1", name), "one participant");
    });
  }

  @Test
  void aCreateLeftUnresolvedWhenItsInstanceStopsIsDeletedByAnother() throws Exception {
    withRelay(Map.of(), (relay, service) -> {
      String name = "unresolved, its instance stopped " + UUID.randomUUID();
      long id = unresolvedCreate(relay, service, name);
      eventually(() -> backlogDue("participant", Long.toString(id)), due -> due > 0);
      service.undeploy();   // PostgreSQL's answers still held: the cancellation waits, and is handed back
      assertEquals(1, service.registered(handedOver("participant")));
      assertEquals(0, service.registered(cancellations("participant", "abandoned")));
      assertTrue(backlogDue("participant", Long.toString(id)) <= System.currentTimeMillis(), "due at once");
      relay.cut();
      withAnotherInstance(other -> {
        eventually(() -> stores.count("SELECT count(*) FROM participant WHERE id = $1", id), n -> n == 0);
        assertEquals(404, other.get("/participant/" + id).statusCode());
      });
    });
  }

  // a create stored by PostgreSQL, whose answer is held with every later one (its check's too) until the 503
  private static long unresolvedCreate(TcpRelay relay, RunningService service, String name) throws Exception {
    return unresolvedCreate(relay, service, name,
        () -> service.post("/participant", new JsonObject().put("name", name)));
  }

  private static long unresolvedCreate(TcpRelay relay, RunningService service, String name,
                                       Supplier<HttpResponse<Buffer>> create)
      throws Exception {
    relay.holdAnswersFrom(name.getBytes(StandardCharsets.UTF_8));
    HttpResponse<Buffer> resp = async(create).get(30, TimeUnit.SECONDS);
    assertEquals(503, resp.statusCode(), resp.bodyAsString());
    List<Row> stored = stores.rows("SELECT id FROM participant WHERE name = $1", name);
    assertEquals(1, stored.size(), "PostgreSQL stored it: only its answer was lost");
    return stored.get(0).getLong("id");
  }

  @Test
  void aBefriendWhoseCommitAnswerIsLostIsAnsweredAsStored() throws Exception {
    // the friend limit's transaction: the COMMIT went out, its answer did not come back
    withRelay(Map.of("SOCIAL_GRAPH_MAX_FRIENDS", "100"), (relay, service) -> {
      long a = service.createParticipant("commit lost a");
      long b = service.createParticipant("commit lost b");
      relay.holdAnswersFrom("COMMIT".getBytes(StandardCharsets.US_ASCII));
      HttpResponse<Buffer> resp = cutAfter(relay, 6_000, () -> service.befriend(a, b));
      assertEquals(200, resp.statusCode(), resp.bodyAsString());
      assertEquals(2, friendships(a, b), "both rows are stored");
      assertEquals(200, service.get("/participant/" + a + "/friends").statusCode());
    });
  }

  @Test
  void aBefriendWhoseAnswerIsLostIsAnsweredAsStored() throws Exception {
    // without a friend limit: one statement
    withRelay(Map.of("SOCIAL_GRAPH_MAX_FRIENDS", "0"), (relay, service) -> {
      long a = service.createParticipant("statement answer lost a");
      long b = service.createParticipant("statement answer lost b");
      relay.holdAnswersFrom(bigint(Math.max(a, b)));
      HttpResponse<Buffer> resp = cutAfter(relay, 6_000, () -> service.befriend(a, b));
      assertEquals(200, resp.statusCode(), resp.bodyAsString());
      assertEquals(2, friendships(a, b));
    });
  }

  @Test
  void aBefriendLeftUnresolvedIsDeletedOncePostgresAnswers() throws Exception {
    // the friend limit's transaction: its COMMIT applied, that answer and every later one held until the 503
    withRelay(Map.of("SOCIAL_GRAPH_MAX_FRIENDS", "100"), (relay, service) -> {
      RunningService direct = RunningService.deploy(vertx);   // another instance, PostgreSQL answering it
      try {
        long a = service.createParticipant("unresolved befriend a");
        long b = service.createParticipant("unresolved befriend b");
        relay.holdAnswersFrom("COMMIT".getBytes(StandardCharsets.US_ASCII));
        unresolvedBefriend(service, a, b);
        // a reader meanwhile caches the friendship the client was told failed
        assertEquals(1, direct.get("/participant/" + a + "/friends").bodyAsJsonArray().size());
        relay.cut();
        eventually(() -> friendships(a, b), n -> n == 0);
        eventually(() -> service.metric(cancellations("friendship", "cancelled")), n -> n == 1);
        // the cached lists go right after the delete (well within their 300 s in Redis)
        eventually(() -> direct.get("/participant/" + a + "/friends").bodyAsJsonArray().size(), n -> n == 0);
        eventually(() -> direct.get("/participant/" + b + "/friends").bodyAsJsonArray().size(), n -> n == 0);
      } finally {
        direct.undeploy();
      }
    });
  }

  @Test
  void aBefriendLeftUnresolvedStaysWhenAnotherRequestWasAnsweredWithIt() throws Exception {
    // without a friend limit: one statement
    withRelay(Map.of("SOCIAL_GRAPH_MAX_FRIENDS", "0"), (relay, service) -> {
      RunningService direct = RunningService.deploy(vertx, Map.of("SOCIAL_GRAPH_MAX_FRIENDS", "0"));
      try {
        long a = service.createParticipant("unresolved, then befriended again a");
        long b = service.createParticipant("unresolved, then befriended again b");
        relay.holdAnswersFrom(bigint(Math.max(a, b)));
        unresolvedBefriend(service, a, b);
        // the same pair asked for again on another instance: answered 200 with the rows the first request stored
        HttpResponse<Buffer> again = direct.befriend(b, a);
        assertEquals(200, again.statusCode(), again.bodyAsString());
        assertEquals(0, stores.count("SELECT count(*) FROM friendship WHERE (from_id, to_id) IN (($1, $2), ($2, $1))"
            + " AND inserted_by IS NOT NULL", a, b), "both rows marked answered");
        relay.cut();
        eventually(() -> service.metric(cancellations("friendship", "not_stored")), n -> n == 1);
        assertEquals(2, friendships(a, b), "kept: a client was answered with it");
        assertEquals(0, service.metric(cancellations("friendship", "cancelled")));
      } finally {
        direct.undeploy();
      }
    });
  }

  @Test
  void aCreateLeftUnresolvedByAnInstanceThatDiedIsDeletedOnceItsLeaseRanOut() throws Exception {
    // what a killed instance leaves: the participant stored, never answered, its cancellation leased in Redis
    String name = "unresolved, its instance killed " + UUID.randomUUID();
    long id = stores.rows("INSERT INTO participant (name) VALUES ($1) RETURNING id", name).get(0).getLong("id");
    long leaseEnded = System.currentTimeMillis() - 1;
    stores.redis.send(Request.cmd(Command.ZADD).arg(CancellationBacklog.key("participant"))
        .arg(leaseEnded).arg(id).arg(leaseEnded).arg("not a participant id " + id)).await();
    withAnotherInstance(other -> {
      eventually(() -> stores.count("SELECT count(*) FROM participant WHERE id = $1", id), n -> n == 0);
      eventually(() -> backlogDue("participant", Long.toString(id)), due -> due == 0);
      assertEquals(0, backlogDue("participant", "not a participant id " + id), "what no instance wrote is removed");
    });
  }

  @Test
  void aBefriendLeftUnresolvedWhenItsInstanceStopsIsDeletedByAnother() throws Exception {
    withRelay(Map.of("SOCIAL_GRAPH_MAX_FRIENDS", "0"), (relay, service) -> {
      long a = service.createParticipant("unresolved befriend, its instance stopped a");
      long b = service.createParticipant("unresolved befriend, its instance stopped b");
      relay.holdAnswersFrom(bigint(Math.max(a, b)));
      unresolvedBefriend(service, a, b);
      service.undeploy();   // whether Redis had it already or not, it is handed back
      assertEquals(1, service.registered(handedOver("friendship")));
      relay.cut();
      withAnotherInstance(other -> {
        eventually(() -> friendships(a, b), n -> n == 0);
        eventually(() -> other.get("/participant/" + a + "/friends").bodyAsJsonArray().size(), n -> n == 0);
      });
    });
  }

  // a befriend stored by PostgreSQL, whose answers are held (its check's too) until the 503
  private static void unresolvedBefriend(RunningService service, long a, long b) throws Exception {
    HttpResponse<Buffer> resp = async(() -> service.befriend(a, b)).get(30, TimeUnit.SECONDS);
    assertEquals(503, resp.statusCode(), resp.bodyAsString());
    assertEquals(2, friendships(a, b), "PostgreSQL stored it: only its answer was lost");
  }

  @Test
  void aCreateDeliveredAfterItsAnswerIsNeverApplied() throws Exception {
    withRelay(Map.of(), (relay, service) -> {
      String name = "delivered late " + UUID.randomUUID();
      relay.holdRequestsFrom(name.getBytes(StandardCharsets.UTF_8));
      HttpResponse<Buffer> resp = async(() -> service.post("/participant", new JsonObject().put("name", name)))
          .get(30, TimeUnit.SECONDS);
      assertEquals(503, resp.statusCode(), resp.bodyAsString());
      relay.releaseRequests();
      Thread.sleep(2_000);   // the held INSERT reaches PostgreSQL now, past its fence
      assertEquals(0, stores.count("SELECT count(*) FROM participant WHERE name = $1", name), "never stored");
    });
  }

  @Test
  void aBefriendDeliveredAfterItsAnswerIsNeverApplied() throws Exception {
    withRelay(Map.of("SOCIAL_GRAPH_MAX_FRIENDS", "0"), (relay, service) -> {
      long a = service.createParticipant("befriend delivered late a");
      long b = service.createParticipant("befriend delivered late b");
      relay.holdRequestsFrom(bigint(Math.max(a, b)));
      HttpResponse<Buffer> resp = async(() -> service.befriend(a, b)).get(30, TimeUnit.SECONDS);
      assertEquals(503, resp.statusCode(), resp.bodyAsString());
      relay.releaseRequests();
      Thread.sleep(2_000);
      assertEquals(0, friendships(a, b), "never stored");
      assertEquals(0, service.get("/participant/" + a + "/friends").bodyAsJsonArray().size());
    });
  }

  private interface RelayTest {
    void run(TcpRelay relay, RunningService service) throws Exception;
  }

  // the service with its PostgreSQL behind a relay of this test
  private static void withRelay(Map<String, String> env, RelayTest test) throws Exception {
    TcpRelay relay =
        new TcpRelay(vertx, freePort(), StackEnv.get("PG_HOST"), Integer.parseInt(StackEnv.get("PG_PORT")));
    relay.start();
    Map<String, String> overrides = new java.util.HashMap<>(env);
    overrides.put("PG_HOST", "127.0.0.1");
    overrides.put("PG_PORT", Integer.toString(relay.port()));
    RunningService service = RunningService.deploy(vertx, overrides);
    try {
      test.run(relay, service);
    } finally {
      service.undeploy();
      relay.stop();
    }
  }

  private interface InstanceTest {
    void run(RunningService other) throws Exception;
  }

  // another instance, started now: it takes the cancellations due in Redis within 5 s, as any instance may
  private static void withAnotherInstance(InstanceTest test) throws Exception {
    RunningService other = RunningService.deploy(vertx);
    try {
      test.run(other);
    } finally {
      other.undeploy();
    }
  }

  // the request's answer, after the relay was cut (every connection, the held answers with them)
  private static HttpResponse<Buffer> cutAfter(TcpRelay relay, long ms, Supplier<HttpResponse<Buffer>> request)
      throws Exception {
    CompletableFuture<HttpResponse<Buffer>> answer = async(request);
    Thread.sleep(ms);
    relay.cut();
    return answer.get(30, TimeUnit.SECONDS);
  }

  private static <T> CompletableFuture<T> async(Supplier<T> call) {
    return CompletableFuture.supplyAsync(call);
  }

  private static String cancellations(String subject, String outcome) {
    return "newsfeed_socialgraph_cancellations_total{outcome=\"" + outcome + "\",service=\"social-graph\",subject=\""
        + subject + "\"}";
  }

  private static String handedOver(String subject) {
    return "newsfeed_socialgraph_cancellations_handed_over_total{service=\"social-graph\",subject=\"" + subject + "\"}";
  }

  // when a cancellation in Redis is due (epoch ms), 0 when it is not there
  private static long backlogDue(String subject, String member) {
    String score = RedisStore.string(stores.redis.send(Request.cmd(Command.ZSCORE)
        .arg(CancellationBacklog.key(subject)).arg(member)).await());
    return score == null ? 0 : (long) Double.parseDouble(score);
  }

  private static long friendships(long a, long b) {
    return stores.count("SELECT count(*) FROM friendship WHERE (from_id, to_id) IN (($1, $2), ($2, $1))", a, b);
  }

  // a bigint parameter as the client sends it (binary, big-endian): the statement that carries it
  private static byte[] bigint(long value) {
    return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
  }
}
