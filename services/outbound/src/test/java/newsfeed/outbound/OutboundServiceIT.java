package newsfeed.outbound;

import newsfeed.common.auth.AuthConfig;
import newsfeed.common.http.LoadShedding;
import newsfeed.common.http.FeedPage;
import newsfeed.common.config.Env;
import newsfeed.common.events.OutboundEvent;
import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.events.OutboundRetractedEvent;
import newsfeed.common.events.TimeUuids;
import newsfeed.common.cassandra.CassandraConfig;
import newsfeed.common.kafka.KafkaSecurity;
import newsfeed.common.metrics.ServiceMetrics;
import newsfeed.common.testing.SocialGraphApi;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.TcpRelay;
import newsfeed.common.testing.TestEvents;
import newsfeed.common.testing.TestTokens;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static newsfeed.common.testing.Waiting.eventually;
import static newsfeed.common.testing.Waiting.freePort;

/**
 * The whole outbound service on the stack's real Cassandra and Kafka (a topic of its own): the post lands in
 * Cassandra and as a contract-shaped event on Kafka, feeds page with a cursor, bad input stores nothing, and an
 * unreachable store is an honest 503 that leaves no half-done post behind.
 */
class OutboundServiceIT {
  private static final int PARTITIONS = 3;
  private static Vertx vertx;
  private static WebClient http;
  private static SocialGraphApi socialGraph;
  private static TestEvents events;
  private static CassandraClient cassandra;
  private static KafkaConsumer<String, String> consumer;
  private static final List<ConsumerRecord<String, String>> seen = new ArrayList<>();
  private static String topic;
  private static int port;
  private static String lastDeployment;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    http = WebClient.create(vertx);
    socialGraph = new SocialGraphApi(http, StackEnv.get("SOCIAL_GRAPH_URL"));
    events = new TestEvents(StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"));
    topic = events.createTopic("it-outbound", PARTITIONS);
    cassandra =
        CassandraClient.create(vertx, cassandraConfig(StackEnv.get("CASSANDRA_CONTACT_POINTS")).clientOptions());
    consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"),
        "auto.offset.reset", "earliest"), new StringDeserializer(), new StringDeserializer());
    List<TopicPartition> partitions = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      partitions.add(new TopicPartition(topic, p));
    }
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    port = deploy(StackEnv.get("CASSANDRA_CONTACT_POINTS"), StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"));
  }

  /**
   * Deploys an outbound verticle on a free port with these stores; returns the port. Its reconciler waits an hour:
   * only the reconciler test's own instance settles pending posts, so no other publishes an event twice.
   */
  private static int deploy(String cassandraContactPoints, String kafkaBootstrap) throws Exception {
    return deploy(cassandraContactPoints, kafkaBootstrap, StackEnv.get("SOCIAL_GRAPH_URL"), Duration.ofHours(1));
  }

  private static int deploy(String cassandraContactPoints, String kafkaBootstrap, String socialGraphUrl,
                            Duration reconcileAfter)
      throws Exception {
    return deploy(cassandraContactPoints, kafkaBootstrap, socialGraphUrl, reconcileAfter, AuthConfig.OFF);
  }

  private static int deploy(String cassandraContactPoints, String kafkaBootstrap, String socialGraphUrl,
                            Duration reconcileAfter, AuthConfig auth)
      throws Exception {
    return deploy(cassandraContactPoints, kafkaBootstrap, socialGraphUrl, reconcileAfter, auth,
        LoadShedding.DEFAULT_MAX_IN_FLIGHT);
  }

  private static int deploy(String cassandraContactPoints, String kafkaBootstrap, String socialGraphUrl,
                            Duration reconcileAfter, AuthConfig auth, int maxInFlight)
      throws Exception {
    int p = freePort();
    OutboundConfig config = new OutboundConfig("127.0.0.1", p, Duration.ofSeconds(5), maxInFlight, 65536,
        cassandraConfig(cassandraContactPoints), kafkaBootstrap, KafkaSecurity.PLAINTEXT, topic, socialGraphUrl,
        reconcileAfter, auth);
    lastDeployment = vertx.deployVerticle(new OutboundVerticle(config, ServiceMetrics.create("outbound"))).await();
    return p;
  }

  /** A started relay in front of the stack's (first) Cassandra node, whose answers a test can hold. */
  private static TcpRelay cassandraRelay() throws Exception {
    String[] cassandraAt = StackEnv.get("CASSANDRA_CONTACT_POINTS").split(",")[0].split(":");
    TcpRelay relay = new TcpRelay(vertx, freePort(), cassandraAt[0], Integer.parseInt(cassandraAt[1]));
    relay.start();
    return relay;
  }

  static CassandraConfig cassandraConfig(String contactPoints) {
    return new CassandraConfig(Env.parseHostPorts("CASSANDRA_CONTACT_POINTS", contactPoints),
        StackEnv.get("CASSANDRA_LOCAL_DC"), StackEnv.get("CASSANDRA_KEYSPACE"), null, null, true);
  }

  @AfterAll
  static void stop() throws Exception {
    if (consumer != null) {
      consumer.close();
    }
    if (cassandra != null) {
      cassandra.close().await();
    }
    if (vertx != null) {
      vertx.close().await();
    }
    if (events != null) {
      events.deleteTopic(topic);
      events.close();
    }
  }

  @Test
  void aPostIsStoredInCassandraThenPublishedInTheContractsShape() throws Exception {
    long poster = socialGraph.createParticipant("poster");
    long before = System.currentTimeMillis();
    HttpResponse<Buffer> created = post(port, poster, new JsonObject().put("from", "/participant/" + poster)
        .put("subject", "hello ünïcode ✓").put("story", "it's a 'story'; DROP TABLE outbound; --"));
    assertEquals(200, created.statusCode(), created.bodyAsString());
    assertEquals("application/json", created.getHeader("Content-Type"));
    JsonObject body = created.bodyAsJsonObject();
    assertEquals(Set.of("from", "occurred", "subject", "story"), body.fieldNames());
    assertEquals("/participant/" + poster, body.getString("from"));
    assertEquals("hello ünïcode ✓", body.getString("subject"));
    Instant occurred = Instant.parse(body.getString("occurred"));
    assertTrue(occurred.toEpochMilli() >= before - 1_000, "without a client's occurred the server's time: " + body);

    ConsumerRecord<String, String> record = eventsOf(poster, 1).get(0);
    assertEquals(Long.toString(poster), record.key(), "keyed by the poster");
    JsonObject event = new JsonObject(record.value());
    assertEquals(Set.of("type", "eventId", "participantId", "from", "occurred", "subject", "story", "postedAtMillis",
        "writtenMicros"), event.fieldNames());
    assertEquals("posted", event.getString("type"));
    assertEquals(poster, event.getLong("participantId"));
    assertEquals("/participant/" + poster, event.getString("from"));
    assertEquals(body.getString("occurred"), event.getString("occurred"));
    assertEquals(occurred.toEpochMilli(), event.getLong("postedAtMillis"));
    assertEquals("it's a 'story'; DROP TABLE outbound; --", event.getString("story"));
    UUID eventId = OutboundPostedEvent.parse(record.value()).eventId();
    assertEquals(1, eventId.version(), "eventId is a timeuuid");
    assertEquals(TimeUuids.unixMicros(eventId), event.getLong("writtenMicros"), "written at the post's own time");

    List<Row> rows = cassandra.executeWithFullFetch(SimpleStatement.newInstance(
        "SELECT occurred, subject, story, WRITETIME(subject) AS written FROM outbound WHERE participant_id = ?",
        poster)).await();
    assertEquals(1, rows.size());
    assertEquals(eventId, rows.get(0).getUuid("occurred"), "the row's timeuuid is the eventId");
    assertEquals(event.getLong("writtenMicros"), rows.get(0).getLong("written"),
        "the event carries the row's write time");
    assertEquals("hello ünïcode ✓", rows.get(0).getString("subject"));

    JsonArray feed = feed(port, poster, "");
    assertEquals(new JsonArray().add(body), feed, "GET returns exactly what POST answered");

    String metrics = get(port, "/metrics").bodyAsString();
    for (String series : List.of(
        "newsfeed_operation_seconds_count{entity=\"outbound\",operation=\"post\",outcome=\"success\",service=\"outbound\"}",
        "newsfeed_operation_seconds_count{entity=\"outbound\",operation=\"load\",outcome=\"success\",service=\"outbound\"}",
        "newsfeed_store_client_seconds_count{operation=\"execute\",outcome=\"success\",service=\"outbound\",store=\"cassandra\"}",
        "newsfeed_store_client_seconds_count{operation=\"query\",outcome=\"success\",service=\"outbound\",store=\"cassandra\"}",
        "newsfeed_store_client_seconds_count{operation=\"produce\",outcome=\"success\",service=\"outbound\",store=\"kafka\"}",
        "newsfeed_events_total{event=\"produced\",service=\"outbound\"}",
        "newsfeed_http_server_requests_seconds_count{method=\"POST\",route=\"/participant/:id/outbound\",service=\"outbound\",status=\"200\"}",
        "newsfeed_operation_seconds_bucket{entity=\"outbound\",operation=\"post\",outcome=\"success\",service=\"outbound\",le=\"0.005\"}")) {
      assertTrue(metrics.contains(series), series + " missing from /metrics");
    }
  }

  @Test
  void aLongPostLabelledAsAFormIsStillJson() {
    long poster = socialGraph.createParticipant("poster");
    String story = "long ".repeat(1_999) + "end";   // 9998 characters, over Vert.x's default form attribute size
    HttpResponse<Buffer> resp = http.post(port, "127.0.0.1", "/participant/" + poster + "/outbound")
        .putHeader("Content-Type", "application/x-www-form-urlencoded")
        .sendBuffer(Buffer.buffer(new JsonObject().put("subject", "curl").put("story", story).encode())).await();
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    assertEquals(story, feed(port, poster, "").getJsonObject(0).getString("story"));
  }

  @Test
  void aPercentSignThatIsNoEscapeInJsonLabelledAsAFormIsStillJson() {
    // curl -d '{"subject":"sale","story":"50% off"}': Vert.x's form decoder refused it as a bad %-escape
    long poster = socialGraph.createParticipant("poster");
    HttpResponse<Buffer> resp = http.post(port, "127.0.0.1", "/participant/" + poster + "/outbound")
        .putHeader("Content-Type", "application/x-www-form-urlencoded")
        .sendBuffer(Buffer.buffer("{\"subject\":\"sale\",\"story\":\"50% off, 100%\"}")).await();
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    assertEquals("50% off, 100%", feed(port, poster, "").getJsonObject(0).getString("story"));
  }

  @Test
  void aClassicFormPostKeepsTheClientsOccurredEverywhere() throws Exception {
    long poster = socialGraph.createParticipant("poster");
    String link = "/participant/" + poster;
    String form = "from=" + enc(link) + "&occurred=2016-05-07&subject=" + enc("12 345 ") + "&story=" + enc("a & b = c");
    HttpResponse<Buffer> created = send(port, link + "/outbound", "application/x-www-form-urlencoded", form);
    assertEquals(200, created.statusCode(), created.bodyAsString());
    JsonObject body = created.bodyAsJsonObject();
    assertEquals(new JsonObject().put("from", link).put("occurred", "2016-05-07").put("subject", "12 345 ")
        .put("story", "a & b = c"), body);

    JsonObject event = new JsonObject(eventsOf(poster, 1).get(0).value());
    assertEquals("2016-05-07", event.getString("occurred"), "the event carries the client's occurred");
    OutboundPostedEvent parsed = OutboundPostedEvent.parse(event.encode());
    assertTrue(Math.abs(parsed.postedAtMillis() - System.currentTimeMillis()) < 60_000, "the post time is now");
    List<Row> rows = cassandra.executeWithFullFetch(SimpleStatement.newInstance(
        "SELECT occurred, occurred_text FROM outbound WHERE participant_id = ?", poster)).await();
    assertEquals("2016-05-07", rows.get(0).getString("occurred_text"));
    assertEquals(parsed.eventId(), rows.get(0).getUuid("occurred"), "the row is keyed by the server's timeuuid");

    // a later post with an earlier occurred still comes first: feeds are ordered by the server's time
    HttpResponse<Buffer> later = post(port, poster, new JsonObject().put("subject", "later").put("story", "s")
        .put("occurred", "1999-12-31T23:59:59.999+01:00"));
    assertEquals(200, later.statusCode(), later.bodyAsString());
    JsonArray feed = feed(port, poster, "");
    assertEquals(new JsonArray().add(later.bodyAsJsonObject()).add(body), feed);
    assertEquals("1999-12-31T23:59:59.999+01:00", feed.getJsonObject(0).getString("occurred"));
  }

  @Test
  void aBodyWithoutContentTypeIsJson() {
    long poster = socialGraph.createParticipant("poster");
    HttpResponse<Buffer> resp = send(port, "/participant/" + poster + "/outbound", null,
        new JsonObject().put("subject", "untyped").put("story", "s").put("occurred", "2020-02-29").encode());
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    assertEquals("2020-02-29", resp.bodyAsJsonObject().getString("occurred"));
    assertEquals("untyped", feed(port, poster, "").getJsonObject(0).getString("subject"));
  }

  @Test
  void otherMediaTypesMalformedOccurredAndBadFormsAre4xxAndStoreNothing() throws Exception {
    long poster = socialGraph.createParticipant("poster");
    String path = "/participant/" + poster + "/outbound";
    String json = new JsonObject().put("subject", "s").put("story", "t").encode();
    for (String type : new String[] {"text/csv", "text/plain", "application/xml", "multipart/form-data; boundary=x",
        "application/octet-stream"}) {
      HttpResponse<Buffer> resp = send(port, path, type, json);
      assertJsonError(415, resp, type);
      assertEquals("unsupported_media_type", resp.bodyAsJsonObject().getString("error"), type);
    }
    for (String occurred : new String[] {"yesterday", "2023-02-29", "2026-11-22T15:30Z", "2026-11-22 15:30:00Z",
        "22/11/2026", "", "2026-11-22T15:30:00"}) {
      HttpResponse<Buffer> resp = post(port, poster, new JsonObject().put("subject", "s").put("story", "t")
          .put("occurred", occurred));
      assertJsonError(400, resp, "occurred " + occurred);
      assertTrue(resp.bodyAsJsonObject().getString("message").startsWith("occurred"), resp.bodyAsString());
    }
    assertJsonError(400, post(port, poster, new JsonObject().put("subject", "s").put("story", "t")
        .put("occurred", 20261122)), "occurred a number");
    String form = "application/x-www-form-urlencoded";
    for (String body : new String[] {"subject=s&story=t&occurred=2026-02-30", "subject=s&story=t&occurred=",
        "subject=s&subject=s&story=t", "subject=s&story=t%", "subject=s", "story=t", "",
        "from=%2Fparticipant%2F" + (poster + 1) + "&subject=s&story=t"}) {
      assertJsonError(400, send(port, path, form, body), "form " + body);
    }
    assertEquals(new JsonArray(), feed(port, poster, ""), "a rejected post must store nothing");
    Thread.sleep(1_000);
    assertEquals(0, eventsOf(poster, 0).size(), "a rejected post must publish nothing");
  }

  @Test
  void feedsArePagedNewestFirstWithACursor() throws Exception {
    long poster = socialGraph.createParticipant("poster");
    int total = 45;
    for (int i = 0; i < total; i++) {
      HttpResponse<Buffer> resp =
          post(port, poster, new JsonObject().put("subject", "post " + i).put("story", "s" + i));
      assertEquals(200, resp.statusCode(), resp.bodyAsString());
    }
    List<String> subjects = new ArrayList<>();
    List<Integer> pageSizes = new ArrayList<>();
    String cursor = null;
    do {
      HttpResponse<Buffer> page = get(port, "/participant/" + poster + "/outbound?limit=20"
          + (cursor == null ? "" : "&cursor=" + cursor));
      assertEquals(200, page.statusCode(), page.bodyAsString());
      JsonArray items = page.bodyAsJsonArray();
      pageSizes.add(items.size());
      items.forEach(o -> subjects.add(((JsonObject) o).getString("subject")));
      cursor = page.getHeader("X-Next-Cursor");
    } while (cursor != null && pageSizes.size() < 10);
    assertEquals(List.of(20, 20, 5), pageSizes);
    List<String> expected = new ArrayList<>();
    for (int i = total - 1; i >= 0; i--) {
      expected.add("post " + i);
    }
    assertEquals(expected, subjects, "newest first, every post exactly once across the pages");

    assertEquals(DEFAULT_PAGE, feed(port, poster, "").size(), "default limit");
    HttpResponse<Buffer> exact = get(port, "/participant/" + poster + "/outbound?limit=45");
    assertEquals(45, exact.bodyAsJsonArray().size());
    assertNull(exact.getHeader("X-Next-Cursor"), "no cursor when nothing follows");
    assertEquals(100, FeedPage.MAX_LIMIT);

    List<ConsumerRecord<String, String>> published = eventsOf(poster, total);
    Set<Integer> partitions = new HashSet<>();
    Set<String> ids = new HashSet<>();
    for (ConsumerRecord<String, String> r : published) {
      partitions.add(r.partition());
      ids.add(new JsonObject(r.value()).getString("eventId"));
    }
    assertEquals(total, ids.size(), "one event per post");
    assertEquals(1, partitions.size(), "one poster's events share a partition, so they stay in order");
  }

  private static final int DEFAULT_PAGE = 20;

  @Test
  void aParticipantWithoutPostsHasAnEmptyFeed() {
    long quiet = socialGraph.createParticipant("quiet");
    HttpResponse<Buffer> resp = get(port, "/participant/" + quiet + "/outbound");
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    assertEquals(new JsonArray(), resp.bodyAsJsonArray());
    assertNull(resp.getHeader("X-Next-Cursor"));
  }

  @Test
  void anUnknownParticipantIs404AndNothingIsStoredOrPublished() throws Exception {
    long unknown = Long.MAX_VALUE - 5;
    assertJsonError(404, get(port, "/participant/" + unknown + "/outbound"), "GET for an unknown id");
    assertJsonError(404, post(port, unknown, new JsonObject().put("subject", "s").put("story", "t")),
        "POST for an unknown id");
    Thread.sleep(1_000);
    assertTrue(eventsOf(unknown, 0).isEmpty(), "nothing published for a rejected post");
  }

  @Test
  void withAuthenticationOnAPosterPostsWithItsOwnTokenOnly() throws Exception {
    TestTokens issuer = TestTokens.rsa();
    int guarded = deploy(StackEnv.get("CASSANDRA_CONTACT_POINTS"), StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"),
        StackEnv.get("SOCIAL_GRAPH_URL"), Duration.ofHours(1), AuthConfig.fromEnv(new Env(issuer.env())));
    long poster = socialGraph.createParticipant("guarded poster");
    JsonObject body = new JsonObject().put("subject", "guarded").put("story", "s");
    HttpResponse<Buffer> none = post(guarded, poster, body);
    assertJsonError(401, none, "no token");
    assertEquals("missing_token", none.bodyAsJsonObject().getString("error"));
    assertEquals("Bearer realm=\"newsfeed\"", none.getHeader("WWW-Authenticate"));
    HttpResponse<Buffer> unknownKey = postAs(guarded, poster, TestTokens.rsa().bearer(Long.toString(poster)), body);
    assertJsonError(401, unknownKey, "a token of another key");
    assertEquals("invalid_token", unknownKey.bodyAsJsonObject().getString("error"));
    HttpResponse<Buffer> someoneElse = postAs(guarded, poster, issuer.bearer(Long.toString(poster + 1)), body);
    assertJsonError(403, someoneElse, "another participant's token");
    assertEquals("forbidden", someoneElse.bodyAsJsonObject().getString("error"));
    assertEquals(List.of(), storedSubjects(poster), "a refused post is stored nowhere");
    Thread.sleep(500);
    assertTrue(eventsOf(poster, 0).isEmpty(), "and published nowhere");

    HttpResponse<Buffer> own = postAs(guarded, poster, issuer.bearer(Long.toString(poster)), body);
    assertEquals(200, own.statusCode(), own.bodyAsString());
    assertEquals(List.of("guarded"), storedSubjects(poster));
    assertEquals(1, eventsOf(poster, 1).size());
    assertEquals(1, feed(guarded, poster, "").size(), "reads need no token");
  }

  @Test
  void withSocialGraphUnreachableAPostIsStillAccepted() throws Exception {
    int alone = deploy(StackEnv.get("CASSANDRA_CONTACT_POINTS"), StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"),
        "http://127.0.0.1:" + freePort(), Duration.ofHours(1));
    long poster = TestEvents.randomParticipantId();
    HttpResponse<Buffer> resp = post(alone, poster, new JsonObject().put("subject", "alone").put("story", "s"));
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    assertEquals(1, feed(alone, poster, "").size(), "stored; an empty feed would have stayed empty too");
  }

  @Test
  void badInputIs400AndStoresNothing() throws Exception {
    long poster = socialGraph.createParticipant("poster");
    String link = "/participant/" + poster;
    String[] bodies = {
        "", "not json", "{", "[]", "[{\"subject\":\"s\",\"story\":\"t\"}]", "\"text\"", "42", "null",
        "{\"story\":\"t\"}", "{\"subject\":\"s\"}", "{\"subject\":\"\",\"story\":\"t\"}",
        "{\"subject\":\"s\",\"story\":\" \"}", "{\"subject\":1,\"story\":\"t\"}",
        "{\"subject\":\"s\",\"story\":{\"a\":1}}", "{\"subject\":null,\"story\":\"t\"}",
        "{\"subject\":\"s\",\"story\":[\"t\"]}", "{\"subject\":true,\"story\":\"t\"}",
        "{\"from\":\"/participant/" + (poster + 1) + "\",\"subject\":\"s\",\"story\":\"t\"}",
        "{\"from\":\"/participant/abc\",\"subject\":\"s\",\"story\":\"t\"}",
        "{\"from\":\"/participant/0\",\"subject\":\"s\",\"story\":\"t\"}",
        "{\"from\":[],\"subject\":\"s\",\"story\":\"t\"}",
        new JsonObject().put("subject", "s".repeat(501)).put("story", "t").encode(),
        new JsonObject().put("subject", "s").put("story", "t".repeat(10_001)).encode(),
    };
    for (String b : bodies) {
      HttpResponse<Buffer> resp = http.post(port, "127.0.0.1", link + "/outbound")
          .putHeader("Content-Type", "application/json").sendBuffer(Buffer.buffer(b)).await();
      assertJsonError(400, resp, b);
    }
    for (String id : new String[] {"abc", "0", "-3", "1.5", "9223372036854775808", "%27%20OR%201=1"}) {
      HttpResponse<Buffer> resp = post(port, id, new JsonObject().put("subject", "s").put("story", "t"));
      assertJsonError(400, resp, "POST id " + id);
      assertJsonError(400, get(port, "/participant/" + id + "/outbound"), "GET id " + id);
    }
    for (String query : new String[] {"limit=0", "limit=101", "limit=x", "limit=-1", "cursor=nope",
        "cursor=AAAAAAAAAAAAAAAAAAAAAA", "cursor=%00"}) {
      assertJsonError(400, get(port, link + "/outbound?" + query), query);
    }
    HttpResponse<Buffer> huge = http.post(port, "127.0.0.1", link + "/outbound")
        .putHeader("Content-Type", "application/json")
        .sendJsonObject(new JsonObject().put("subject", "s").put("story", "x".repeat(70_000))).await();
    assertJsonError(413, huge, "body over HTTP_MAX_BODY_BYTES");
    HttpResponse<Buffer> put = http.request(HttpMethod.PUT, port, "127.0.0.1", link + "/outbound").send().await();
    assertJsonError(405, put, "PUT");
    assertEquals("GET, POST", put.getHeader("Allow"), "a 405 names the methods the path takes");
    assertJsonError(404, get(port, link + "/outboundz"), "unknown route");

    assertEquals(new JsonArray(), feed(port, poster, ""), "a rejected post must store nothing");
    Thread.sleep(1_000);
    assertEquals(0, eventsOf(poster, 0).size(), "a rejected post must publish nothing");
  }

  @Test
  void kafkaUnreachableIs503AndLeavesNoPostBehind() throws Exception {
    int noKafka = deploy(StackEnv.get("CASSANDRA_CONTACT_POINTS"), "127.0.0.1:" + freePort());
    long poster = socialGraph.createParticipant("poster");
    long start = System.currentTimeMillis();
    HttpResponse<Buffer> resp = post(noKafka, poster, new JsonObject().put("subject", "lost?").put("story", "no"));
    long took = System.currentTimeMillis() - start;
    assertJsonError(503, resp, "POST without Kafka");
    assertEquals("store_unavailable", resp.bodyAsJsonObject().getString("error"));
    assertTrue(took < EventPublisher.WORST_CASE_MS + 3_000, "bounded wait, took " + took + " ms");

    assertEquals(new JsonArray(), feed(noKafka, poster, ""), "the compensation deleted the row");
    assertEquals(new JsonArray(), feed(port, poster, ""), "no instance shows the post");
    String metrics = get(noKafka, "/metrics").bodyAsString();
    assertTrue(metrics.contains("newsfeed_store_client_seconds_count{operation=\"delete\",outcome=\"success\","
        + "service=\"outbound\",store=\"cassandra\"} 1\n"), "the row was written, then deleted: " + metrics);
    assertTrue(metrics.contains("newsfeed_events_total{event=\"failed\",service=\"outbound\"} 1.0"), metrics);
    assertTrue(metrics.contains("newsfeed_outbound_retractions_pending{service=\"outbound\"} 1.0"),
        "the event may have reached a broker: its retraction waits for Kafka: " + metrics);
    // reads need no Kafka, so the instance stays ready; the event path reports the broker
    HttpResponse<Buffer> ready = get(noKafka, "/health/ready");
    assertEquals(200, ready.statusCode(), ready.bodyAsString());
    assertEquals(new JsonObject().put("cassandra", "UP"), ready.bodyAsJsonObject().getJsonObject("checks"));
    HttpResponse<Buffer> events = get(noKafka, "/health/events");
    assertEquals(503, events.statusCode(), events.bodyAsString());
    assertTrue(events.bodyAsJsonObject().getJsonObject("checks").getString("kafka").startsWith("DOWN"));
    assertEquals(200, get(port, "/health/events").statusCode(), "with the broker");
    assertEquals(200, get(noKafka, "/health/live").statusCode());
  }

  @Test
  void cassandraUnreachableIs503AndPublishesNothing() throws Exception {
    int noCassandra = deploy("127.0.0.1:" + freePort(), StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"));
    long poster = socialGraph.createParticipant("poster");
    HttpResponse<Buffer> resp = post(noCassandra, poster, new JsonObject().put("subject", "s").put("story", "t"));
    assertJsonError(503, resp, "POST without Cassandra");
    assertEquals("store_unavailable", resp.bodyAsJsonObject().getString("error"));
    assertJsonError(503, get(noCassandra, "/participant/" + poster + "/outbound"), "GET without Cassandra");
    HttpResponse<Buffer> ready = get(noCassandra, "/health/ready");
    assertEquals(503, ready.statusCode(), ready.bodyAsString());
    assertTrue(ready.bodyAsJsonObject().getJsonObject("checks").getString("cassandra").startsWith("DOWN"));
    assertEquals(200, get(noCassandra, "/health/events").statusCode(), "the broker answers");
    assertTrue(get(noCassandra, "/metrics").bodyAsString().contains("newsfeed_store_client_seconds_count{operation="
        + "\"delete\",outcome=\"error\",service=\"outbound\",store=\"cassandra\"} 0\n"),
        "a write the driver never sent needs no cancellation");
    Thread.sleep(1_000);
    assertEquals(0, eventsOf(poster, 0).size(), "no event for a post that was not stored");
    assertEquals(new JsonArray(), feed(port, poster, ""));
  }

  @Test
  void aWriteWhoseAnswerIsLostIsCancelledBeforeThe503() throws Exception {
    TcpRelay relay = cassandraRelay();
    try {
      int behindRelay = deploy("127.0.0.1:" + relay.port(), StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"));
      long poster = socialGraph.createParticipant("poster");
      // the first post prepares the statements and opens the connections through the relay
      assertEquals(200, post(behindRelay, poster, new JsonObject().put("subject", "first").put("story", "t"))
          .statusCode());
      // (and removed its pending entry: no answer of it is on its way any more)
      long now = System.currentTimeMillis() / 60_000;
      eventually(() -> pendingOf(poster, now - 1).size() + pendingOf(poster, now).size(), n -> n == 0);
      relay.holdAnswers();
      var answer = http.post(behindRelay, "127.0.0.1", "/participant/" + poster + "/outbound")
          .sendJsonObject(new JsonObject().put("subject", "answer lost").put("story", "t"));
      // Cassandra did the work: read past the relay, the row is there
      eventually(() -> storedSubjects(poster), subjects -> subjects.contains("answer lost"));
      Thread.sleep(2_500);   // past the driver's request timeout (2 s): the insert failed, the cancel is held too
      relay.releaseAnswers();
      HttpResponse<Buffer> resp = answer.await(20, java.util.concurrent.TimeUnit.SECONDS);
      assertJsonError(503, resp, "POST whose write was not answered");
      assertEquals(List.of("first"), storedSubjects(poster), "the tombstone shadows the written row");
      assertEquals(1, feed(port, poster, "").size());
      eventsOf(poster, 1);
      Thread.sleep(1_000);
      assertEquals(1, eventsOf(poster, 1).size(), "no event for the cancelled post");
      assertTrue(get(behindRelay, "/metrics").bodyAsString().contains(
          "newsfeed_outbound_cancellations_total{outcome=\"cancelled\",service=\"outbound\"} 1.0"));
    } finally {
      relay.stop();
    }
  }

  @Test
  void aRequestBeyondTheInFlightBoundIsRefusedBeforeAnyStoreWorkAndNeverStored() throws Exception {
    TcpRelay relay = cassandraRelay();
    try {
      int bounded = deploy("127.0.0.1:" + relay.port(), StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"),
          StackEnv.get("SOCIAL_GRAPH_URL"), Duration.ofHours(1), AuthConfig.OFF, 1);
      String inFlight = "newsfeed_http_server_in_flight{service=\"outbound\"}";
      long poster = socialGraph.createParticipant("poster");
      assertEquals(200, post(bounded, poster, new JsonObject().put("subject", "first").put("story", "t"))
          .statusCode());
      relay.holdAnswers();
      // the one request the instance may work on: its write waits for Cassandra's held answer
      var held = http.post(bounded, "127.0.0.1", "/participant/" + poster + "/outbound")
          .sendJsonObject(new JsonObject().put("subject", "held").put("story", "t"));
      eventually(() -> counter(get(bounded, "/metrics").bodyAsString(), inFlight), n -> n == 1);
      long start = System.nanoTime();
      HttpResponse<Buffer> shed = post(bounded, poster, new JsonObject().put("subject", "shed").put("story", "t"));
      long tookMs = (System.nanoTime() - start) / 1_000_000;
      assertJsonError(503, shed, "POST beyond HTTP_MAX_IN_FLIGHT");
      assertEquals("overloaded", shed.bodyAsJsonObject().getString("error"));
      assertEquals("1", shed.getHeader("Retry-After"));
      assertTrue(tookMs < 1_000, "refused at once, not after the held write: " + tookMs + " ms");
      // reads are bounded too; health and metrics are not
      assertJsonError(503, get(bounded, "/participant/" + poster + "/outbound"), "GET beyond HTTP_MAX_IN_FLIGHT");
      assertEquals(200, get(bounded, "/health/live").statusCode());
      String metrics = get(bounded, "/metrics").bodyAsString();
      assertEquals(2.0, counter(metrics, "newsfeed_http_server_shed_total{service=\"outbound\"}"), metrics);
      assertEquals(1.0, counter(metrics, "newsfeed_http_server_max_in_flight{service=\"outbound\"}"), metrics);
      assertTrue(metrics.contains("newsfeed_http_server_requests_seconds_count{method=\"POST\","
          + "route=\"/participant/:id/outbound\",service=\"outbound\",status=\"503\"} 1"), metrics);

      relay.releaseAnswers();
      assertEquals(200, held.await(20, java.util.concurrent.TimeUnit.SECONDS).statusCode());
      eventually(() -> counter(get(bounded, "/metrics").bodyAsString(), inFlight), n -> n == 0);
      assertEquals(200, post(bounded, poster, new JsonObject().put("subject", "after").put("story", "t"))
          .statusCode(), "taken again once the held request ended");
      eventsOf(poster, 3);
      Thread.sleep(1_000);
      assertEquals(List.of("first", "held", "after"), eventsOf(poster, 3).stream()
          .map(r -> new JsonObject(r.value()).getString("subject")).toList(), "no event of the refused post");
      assertEquals(Set.of("first", "held", "after"), Set.copyOf(storedSubjects(poster)), "no row of it either");
    } finally {
      relay.stop();
    }
  }

  @Test
  void aPostLeftWithoutItsEventIsPublishedByTheReconcilerAndOnlyIt() throws Exception {
    long poster = socialGraph.createParticipant("poster");
    // a minute the running local outbound has already reconciled (it shares the keyspace, settles minutes from 2 back
    // every 15 s and never returns to one): only the reconciler deployed here, which starts 15 minutes back, sees these
    // entries; with 2 back the service's next round could settle them first, into its own topic
    long minute = System.currentTimeMillis() / 60_000 - 5;
    // what a process that died between a row and its event leaves: the pending entry and the row
    UUID orphan = pendingPost(poster, minute, "orphan", true);
    // entries of posts that are not there: cancelled (a tombstone after the row), and never written
    UUID cancelled = pendingPost(poster, minute, "cancelled", true);
    cassandra.execute(SimpleStatement.newInstance("DELETE FROM outbound USING TIMESTAMP ? WHERE participant_id = ?"
        + " AND occurred = ?", TimeUuids.unixMicros(cancelled) + 1, poster, cancelled)).await();
    UUID never = pendingPost(poster, minute, "never written", false);
    // a post whose row a retry wrote again later: that retry's own entry publishes it, not this one
    UUID retried = pendingPost(poster, minute, "retried", true);
    cassandra.execute(SimpleStatement.newInstance("INSERT INTO outbound (participant_id, occurred, subject, story)"
        + " VALUES (?, ?, 'retried', 'story') USING TIMESTAMP ?", poster, retried, TimeUuids.unixMicros(retried) + 2))
        .await();

    int reconciling = deploy(StackEnv.get("CASSANDRA_CONTACT_POINTS"), StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"),
        StackEnv.get("SOCIAL_GRAPH_URL"), Duration.ofSeconds(1));
    // undeployed at the end: a reconciler this quick would settle the half-done posts other tests count
    String reconciler = lastDeployment;
    try {
      eventually(() -> pendingOf(poster, minute), List::isEmpty);
      eventsOf(poster, 3);
      Thread.sleep(1_000);
      List<OutboundEvent> published = eventsOf(poster, 3).stream().map(r -> OutboundEvent.parse(r.value())).toList();
      assertEquals(List.of(new OutboundPostedEvent(orphan, poster, "orphan", "story", TimeUuids.unixMillis(orphan))),
          published.stream().filter(OutboundPostedEvent.class::isInstance).toList(),
          "the orphan is published, at the row's write time; the retried post is not");
      // the posts that are not there are retracted once more (their 503's own retraction may have been lost)
      assertEquals(Set.of(new OutboundRetractedEvent(cancelled, poster, TimeUuids.unixMicros(cancelled) + 1),
          new OutboundRetractedEvent(never, poster, TimeUuids.unixMicros(never) + 1)),
          published.stream().filter(OutboundRetractedEvent.class::isInstance)
              .collect(java.util.stream.Collectors.toSet()));
      // (at least: the half-done posts earlier tests of this class left are settled too)
      String metrics = get(reconciling, "/metrics").bodyAsString();
      assertTrue(
          counter(metrics, "newsfeed_outbound_reconciled_total{outcome=\"published\",service=\"outbound\"}") >= 1,
          metrics);
      assertTrue(counter(metrics, "newsfeed_outbound_reconciled_total{outcome=\"gone\",service=\"outbound\"}") >= 3,
          metrics);

      // a post acknowledged normally leaves no entry behind
      assertEquals(200, post(reconciling, poster, new JsonObject().put("subject", "normal").put("story", "s"))
          .statusCode());
      long now = System.currentTimeMillis() / 60_000;
      eventually(() -> pendingOf(poster, now - 1).size() + pendingOf(poster, now).size(), n -> n == 0);
    } finally {
      vertx.undeploy(reconciler).await();
    }
  }

  /** The value of one series of a Prometheus exposition, 0 when absent. */
  private static double counter(String metrics, String series) {
    return metrics.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(l.split(" ")[1]))
        .findFirst().orElse(0);
  }

  /** A pending entry of a new post of the poster in that minute, and its row when {@code written}. */
  private static UUID pendingPost(long poster, long minute, String subject, boolean written) {
    UUID occurred = com.datastax.oss.driver.api.core.uuid.Uuids.timeBased();
    long micros = TimeUuids.unixMicros(occurred);
    cassandra.execute(SimpleStatement.newInstance("INSERT INTO outbound_pending (minute, shard, occurred,"
        + " participant_id, written) VALUES (?, ?, ?, ?, ?)", minute, (int) (poster % PendingPosts.SHARDS), occurred,
        poster, micros)).await();
    if (written) {
      cassandra.execute(SimpleStatement.newInstance("INSERT INTO outbound (participant_id, occurred, subject, story)"
          + " VALUES (?, ?, ?, 'story') USING TIMESTAMP ?", poster, occurred, subject, micros)).await();
    }
    return occurred;
  }

  /** The pending entries of the poster in that minute. */
  private static List<UUID> pendingOf(long poster, long minute) {
    return cassandra.executeWithFullFetch(SimpleStatement.newInstance("SELECT occurred, participant_id FROM"
        + " outbound_pending WHERE minute = ? AND shard = ?", minute, (int) (poster % PendingPosts.SHARDS))).await()
        .stream().filter(r -> r.getLong("participant_id") == poster).map(r -> r.getUuid("occurred")).toList();
  }

  @Test
  void aRetryWithTheSameIdempotencyKeyGetsTheSamePostBack() throws Exception {
    long poster = socialGraph.createParticipant("poster");
    String key = UUID.randomUUID().toString();
    JsonObject body = new JsonObject().put("subject", "once").put("story", "only once");
    HttpResponse<Buffer> first = postWithKey(port, poster, key, body);
    assertEquals(200, first.statusCode(), first.bodyAsString());
    HttpResponse<Buffer> retry = postWithKey(port, poster, key, body);
    assertEquals(200, retry.statusCode(), retry.bodyAsString());
    assertEquals(first.bodyAsJsonObject(), retry.bodyAsJsonObject(), "the same post, same occurred");
    assertEquals(1, feed(port, poster, "").size());
    eventsOf(poster, 1);
    Thread.sleep(1_000);
    assertEquals(1, eventsOf(poster, 1).size(), "one event");

    HttpResponse<Buffer> reused = postWithKey(port, poster, key, body.copy().put("story", "something else"));
    assertJsonError(422, reused, "the key of another post");
    assertEquals("idempotency_key_reused", reused.bodyAsJsonObject().getString("error"));
    long other = socialGraph.createParticipant("other");
    assertEquals(200, postWithKey(port, other, key, body).statusCode(), "keys are the poster's own");
    for (String bad : new String[] {"", " ", "k".repeat(256), "caf\u00e9", "tab\there"}) {
      assertJsonError(400, postWithKey(port, poster, bad, body.copy().put("subject", "bad key")), "key '" + bad + "'");
    }
    assertEquals(1, feed(port, poster, "").size(), "neither a reused nor a bad key stores anything");
    assertEquals(1, feed(port, other, "").size());
  }

  @Test
  void aRetryAfterA503MakesThePostExactlyOnce() throws Exception {
    int noKafka = deploy(StackEnv.get("CASSANDRA_CONTACT_POINTS"), "127.0.0.1:" + freePort());
    long poster = socialGraph.createParticipant("poster");
    String key = UUID.randomUUID().toString();
    JsonObject body = new JsonObject().put("subject", "retried").put("story", "t");
    var firstAttempt = http.post(noKafka, "127.0.0.1", "/participant/" + poster + "/outbound")
        .putHeader("Idempotency-Key", key).sendJsonObject(body);
    UUID claimed = eventually(() -> claimOf(poster, key), c -> c != null);
    HttpResponse<Buffer> meanwhile = postWithKey(port, poster, key, body);
    assertJsonError(409, meanwhile, "a retry while the first request runs");
    assertEquals("request_in_progress", meanwhile.bodyAsJsonObject().getString("error"));
    assertJsonError(503, firstAttempt.await(20, java.util.concurrent.TimeUnit.SECONDS), "the first attempt");
    assertEquals(new JsonArray(), feed(port, poster, ""), "the failed attempt was cancelled");

    HttpResponse<Buffer> retry = postWithKey(port, poster, key, body);   // at once: the failure released the key
    assertEquals(200, retry.statusCode(), retry.bodyAsString());
    assertEquals(Instant.ofEpochMilli(TimeUuids.unixMillis(claimed)).toString(),
        retry.bodyAsJsonObject().getString("occurred"), "the post of the first request");
    assertEquals(1, feed(port, poster, "").size());
    List<ConsumerRecord<String, String>> published = eventsOf(poster, 1);
    Thread.sleep(1_000);
    assertEquals(1, eventsOf(poster, 1).size());
    assertEquals(claimed, OutboundPostedEvent.parse(published.get(0).value()).eventId());
    assertEquals(retry.bodyAsJsonObject(), postWithKey(port, poster, key, body).bodyAsJsonObject());
  }

  @Test
  void aShutdownDrainsPostsInFlightAndEveryAcknowledgedPostIsPublished() throws Exception {
    int draining = deploy(StackEnv.get("CASSANDRA_CONTACT_POINTS"), StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"));
    String deployment = lastDeployment;
    long poster = socialGraph.createParticipant("poster");
    List<io.vertx.core.Future<HttpResponse<Buffer>>> inFlight = new ArrayList<>();
    // spread over ~200 ms so the shutdown finds requests in every stage: answered, in flight, not yet accepted
    // (sent all at once, they may all still be connecting when it starts, and none is acknowledged)
    for (int i = 0; i < 20; i++) {
      inFlight.add(http.post(draining, "127.0.0.1", "/participant/" + poster + "/outbound")
          .sendJsonObject(new JsonObject().put("subject", "drain " + i).put("story", "t")));
      Thread.sleep(10);
    }
    vertx.undeploy(deployment).await();
    int acknowledged = 0;
    for (io.vertx.core.Future<HttpResponse<Buffer>> f : inFlight) {
      try {
        f.await(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (Exception refusedOrClosed) {
        continue;   // never got to the server, or a queued request on a closing connection: not acknowledged
      }
      if (f.succeeded()) {
        assertEquals(200, f.result().statusCode(),
            "an accepted request is finished, not cut: " + f.result().bodyAsString());
        acknowledged++;
      }
    }
    assertTrue(acknowledged > 0, "requests sent before the shutdown are drained");
    assertEquals(acknowledged, feed(port, poster, "?limit=100").size(), "every acknowledged post is stored");
    Thread.sleep(500);
    assertEquals(acknowledged, eventsOf(poster, acknowledged).size(), "every acknowledged post is published once");
  }

  private static void assertJsonError(int status, HttpResponse<Buffer> resp, String what) {
    assertEquals(status, resp.statusCode(), what + ": " + resp.bodyAsString());
    assertEquals("application/json", resp.getHeader("Content-Type"), what);
    JsonObject body = resp.bodyAsJsonObject();
    assertEquals(status, body.getInteger("status"), what);
    assertNotNull(body.getString("error"), what);
    assertNotNull(body.getString("message"), what);
    assertFalse(resp.bodyAsString().contains("Exception"), what + " leaks a stack trace");
  }

  private static HttpResponse<Buffer> postWithKey(int port, long participant, String key, JsonObject body) {
    return http.post(port, "127.0.0.1", "/participant/" + participant + "/outbound")
        .putHeader("Idempotency-Key", key).sendJsonObject(body).await();
  }

  /** The subjects of the poster's rows, read from Cassandra itself. */
  private static List<String> storedSubjects(long poster) {
    return cassandra.executeWithFullFetch(SimpleStatement.newInstance(
        "SELECT subject FROM outbound WHERE participant_id = ?", poster)).await().stream()
        .map(r -> r.getString("subject")).toList();
  }

  /** The post a key claimed, null before it is claimed. */
  private static UUID claimOf(long poster, String key) {
    List<Row> rows = cassandra.executeWithFullFetch(SimpleStatement.newInstance(
        "SELECT occurred FROM outbound_request WHERE participant_id = ? AND idempotency_key = ?", poster, key))
        .await();
    return rows.isEmpty() ? null : rows.get(0).getUuid("occurred");
  }

  private static HttpResponse<Buffer> post(int port, Object participant, JsonObject body) {
    return http.post(port, "127.0.0.1", "/participant/" + participant + "/outbound").sendJsonObject(body).await();
  }

  private static HttpResponse<Buffer> postAs(int port, long participant, String authorization, JsonObject body) {
    return http.post(port, "127.0.0.1", "/participant/" + participant + "/outbound")
        .putHeader("Authorization", authorization).sendJsonObject(body).await();
  }

  /** A POST of this body with this Content-Type (none when null). */
  private static HttpResponse<Buffer> send(int port, String uri, String contentType, String body) {
    var request = http.post(port, "127.0.0.1", uri);
    if (contentType != null) {
      request.putHeader("Content-Type", contentType);
    }
    return request.sendBuffer(Buffer.buffer(body)).await();
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static HttpResponse<Buffer> get(int port, String uri) {
    return http.get(port, "127.0.0.1", uri).send().await();
  }

  private static JsonArray feed(int port, long participant, String query) {
    HttpResponse<Buffer> resp = get(port, "/participant/" + participant + "/outbound" + query);
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    return resp.bodyAsJsonArray();
  }

  /** The events keyed by this poster, waiting (up to 20 s) until at least {@code atLeast} arrived. */
  private static List<ConsumerRecord<String, String>> eventsOf(long poster, int atLeast) {
    long deadline = System.currentTimeMillis() + 20_000;
    List<ConsumerRecord<String, String>> mine = new ArrayList<>();
    do {
      consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
      mine.clear();
      seen.stream().filter(r -> Long.toString(poster).equals(r.key())).forEach(mine::add);
    } while (mine.size() < atLeast && System.currentTimeMillis() < deadline);
    assertTrue(mine.size() >= atLeast, "expected " + atLeast + " events of " + poster + ", got " + mine.size());
    return mine;
  }
}
