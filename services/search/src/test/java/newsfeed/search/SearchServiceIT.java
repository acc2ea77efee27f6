package newsfeed.search;

import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.events.OutboundRetractedEvent;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.TestEvents;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.metrics.ServiceMetrics;
import newsfeed.common.kafka.ConsumerTuning;
import newsfeed.common.kafka.EventConsumerConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static newsfeed.common.testing.Waiting.eventually;
import static newsfeed.common.testing.Waiting.freePort;

/**
 * The whole search service on real Kafka and Solr: events published to a topic of its own are indexed, found
 * through the HTTP API, redeliveries do not duplicate, offsets get committed; bad input is a 400 JSON error.
 */
class SearchServiceIT {
  private static Vertx vertx;
  private static TestEvents events;
  private static String topic;
  private static String group;
  private static String deadLetters;
  private static int port;
  private static WebClient http;

  @BeforeAll
  static void start() throws Exception {
    events = new TestEvents(StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"));
    topic = events.createTopic("it-search", 3);
    group = "it-search-" + UUID.randomUUID();
    deadLetters = events.createDeadLetterTopic(topic, group);
    port = freePort();
    SearchConfig config = new SearchConfig("127.0.0.1", port, Duration.ofSeconds(5),
        new EventConsumerConfig(StackEnv.get("KAFKA_BOOTSTRAP_SERVERS"), topic, group, deadLetters, 3,
            Duration.ofSeconds(120), ConsumerTuning.kafkaDefaults()),
        StackEnv.get("SOLR_URL"), StackEnv.get("SOLR_COLLECTION"));
    vertx = Vertx.vertx();
    PrometheusMeterRegistry registry = ServiceMetrics.create("search");
    vertx.deployVerticle(new SearchVerticle(config, registry)).await();
    http = WebClient.create(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    if (vertx != null) {
      vertx.close().await();
    }
    if (events != null) {
      events.deleteTopic(topic);
      events.deleteTopic(deadLetters);
      events.close();
    }
  }

  @Test
  void publishedPostsBecomeSearchableOnceAndOffsetsAreCommitted() throws Exception {
    String word = TestEvents.uniqueWord();
    long poster = TestEvents.randomParticipantId();
    UUID eventId = TestEvents.timeUuid();
    events.publish(topic, eventId, poster, "subject " + word, "a story");

    JsonArray senders = eventually(() -> get("/outbound?keywords=" + word).bodyAsJsonArray(),
        a -> a.size() == 1);
    assertEquals(new JsonArray().add("/participant/" + poster), senders);

    // the same event again (a redelivery), then a marker behind it on the same partition (same key)
    events.publish(topic, eventId, poster, "subject " + word, "a story");
    events.publish(topic, TestEvents.timeUuid(), poster, "marker " + word, "marker");
    JsonArray posts = eventually(() -> get("/outbound?posts=true&keywords=" + word).bodyAsJsonArray(),
        a -> a.size() >= 2);
    assertEquals(2, posts.size(), "one document per eventId: " + posts);
    JsonObject original = posts.getJsonObject(1);
    assertEquals("/participant/" + poster, original.getString("from"));
    assertEquals("a story", original.getString("story"));

    // a malformed event goes to the group's dead-letter topic without blocking the partition behind it
    events.publishRaw(topic, Long.toString(poster), "{not json");
    events.publish(topic, TestEvents.timeUuid(), poster, "after " + word, "after");
    eventually(() -> get("/outbound?posts=true&keywords=" + word).bodyAsJsonArray(), a -> a.size() == 3);
    List<ConsumerRecord<String, String>> dead = events.readAll(deadLetters, 1, Duration.ofSeconds(20));
    assertEquals(List.of("{not json"), dead.stream().map(ConsumerRecord::value).toList());

    Map<Integer, Long> lag = eventually(SearchServiceIT::uncommitted, m -> m.values().stream().allMatch(l -> l == 0));
    assertEquals(3, lag.size());

    String metrics = get("/metrics").bodyAsString();
    assertTrue(metrics.contains("newsfeed_search_index_delay_seconds_count{service=\"search\"}"), metrics);
    assertTrue(metrics.contains("newsfeed_events_total{event=\"consumed\",service=\"search\"}"), metrics);
    assertTrue(metrics.contains("newsfeed_events_total{event=\"dead_lettered\",service=\"search\"} 1.0"), metrics);
    assertTrue(metrics.contains("newsfeed_store_client_seconds_bucket{operation=\"index\",outcome=\"success\","),
        metrics);
    assertTrue(metrics.contains("newsfeed_http_server_requests_seconds_count{method=\"GET\",route=\"/outbound\","),
        metrics);
  }

  @Test
  void aRetractedPostIsNoLongerFoundInWhateverOrderAndARetryWrittenLaterIs() throws Exception {
    String word = TestEvents.uniqueWord();
    long poster = TestEvents.randomParticipantId();
    OutboundPostedEvent post = new OutboundPostedEvent(TestEvents.timeUuid(), poster, "retracted " + word, "t",
        System.currentTimeMillis());
    events.publish(topic, post);
    eventually(() -> subjects(word), s -> s.equals(List.of("retracted " + word)));
    // its client was answered 503: the retraction removes it; a replay of the post after it changes nothing
    events.publish(topic, new OutboundRetractedEvent(post.eventId(), poster, post.writtenMicros() + 1));
    events.publish(topic, post);
    // the retraction before the post it cancels (with a post in the same run of the batch): never found
    OutboundPostedEvent early = new OutboundPostedEvent(TestEvents.timeUuid(), poster, "never " + word, "t",
        System.currentTimeMillis());
    events.publish(topic, new OutboundRetractedEvent(early.eventId(), poster, early.writtenMicros() + 1));
    events.publish(topic, early);
    events.publish(topic, new OutboundPostedEvent(TestEvents.timeUuid(), poster, "marker " + word, "m",
        System.currentTimeMillis()));
    eventually(() -> subjects(word), s -> s.equals(List.of("marker " + word)));
    // a retry with the same Idempotency-Key made the post after all: written after the retraction, it is found
    events.publish(topic, post.writtenAt(post.writtenMicros() + 2));
    eventually(() -> subjects(word), s -> s.equals(List.of("marker " + word, "retracted " + word)));
    // a late retraction of the first attempt (its publisher was away meanwhile) leaves the retry's document
    events.publish(topic, new OutboundRetractedEvent(post.eventId(), poster, post.writtenMicros() + 1));
    events.publish(topic, new OutboundPostedEvent(TestEvents.timeUuid(), poster, "last " + word, "m",
        System.currentTimeMillis()));
    assertEquals(List.of("last " + word, "marker " + word, "retracted " + word),
        eventually(() -> subjects(word), s -> s.size() == 3));
    assertTrue(get("/metrics").bodyAsString()
        .contains("newsfeed_events_total{event=\"retracted\",service=\"search\"} 3.0"));
  }

  private static List<String> subjects(String word) {
    JsonArray posts = get("/outbound?posts=true&keywords=" + word).bodyAsJsonArray();
    return posts.stream().map(o -> ((JsonObject) o).getString("subject")).toList();
  }

  @Test
  void badInputIsA400JsonErrorAndNothingElse() {
    for (String query : new String[] {"", "?keywords=", "?keywords=%20%20", "?keywords=" + "x".repeat(201),
        "?keywords=a&keywords=b", "?keywords=a&posts=yes", "?keywords=a&limit=0", "?keywords=a&limit=101",
        "?keywords=a&limit=x"}) {
      HttpResponse<Buffer> resp = get("/outbound" + query);
      assertEquals(400, resp.statusCode(), query);
      JsonObject body = resp.bodyAsJsonObject();
      assertEquals(400, body.getInteger("status"), query);
      assertTrue(body.getString("error").startsWith("invalid_"), query);
    }
    assertEquals(404, get("/nothing/here").statusCode());
    assertEquals(404, get("/nothing/here").bodyAsJsonObject().getInteger("status"));
  }

  @Test
  void healthEndpoints() {
    assertEquals(200, get("/health/live").statusCode());
    HttpResponse<Buffer> ready = get("/health/ready");
    assertEquals(200, ready.statusCode(), ready.bodyAsString());
    assertEquals(new JsonObject().put("solr", "UP"), ready.bodyAsJsonObject().getJsonObject("checks"),
        "readiness is what the HTTP API needs");
    HttpResponse<Buffer> events = get("/health/events");
    assertEquals(200, events.statusCode(), events.bodyAsString());
    assertEquals(new JsonObject().put("kafka", "UP").put("consumer", "UP"),
        events.bodyAsJsonObject().getJsonObject("checks"));
  }

  private static HttpResponse<Buffer> get(String uri) {
    return http.get(port, "127.0.0.1", uri).send().await();
  }

  /** Per partition: end offset minus the group's committed offset. */
  private static Map<Integer, Long> uncommitted() {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", StackEnv.get("KAFKA_BOOTSTRAP_SERVERS")))) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < 3; p++) {
        latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      return admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).entrySet().stream()
          .collect(Collectors.toMap(e -> e.getKey().partition(), e -> {
            OffsetAndMetadata c = committed.get(e.getKey());
            return e.getValue().offset() - (c == null ? 0 : c.offset());
          }));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
