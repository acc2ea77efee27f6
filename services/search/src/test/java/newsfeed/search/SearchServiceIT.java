package newsfeed.search;

import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.events.OutboundRetractedEvent;
import newsfeed.common.testing.ConsumerHealth;
import newsfeed.common.testing.ConsumerOnStack;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.TestEvents;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import newsfeed.common.metrics.ServiceMetrics;
import newsfeed.common.kafka.ConsumerTuning;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static newsfeed.common.testing.Waiting.eventually;

/**
 * The whole search service on real Kafka and Solr: events published to a topic of its own are indexed, found
 * through the HTTP API, redeliveries do not duplicate, offsets get committed; bad input is a 400 JSON error.
 */
class SearchServiceIT {
  @RegisterExtension
  static final ConsumerOnStack stack = new ConsumerOnStack("it-search");

  @BeforeAll
  static void start() {
    SearchConfig config = new SearchConfig("127.0.0.1", stack.port(), Duration.ofSeconds(5), 0,
        stack.consumerConfig(ConsumerTuning.kafkaDefaults()),
        StackEnv.get("SOLR_URL"), StackEnv.get("SOLR_COLLECTION"), SolrCredentials.NONE);
    PrometheusMeterRegistry registry = ServiceMetrics.create("search");
    stack.vertx().deployVerticle(new SearchVerticle(config, registry)).await();
  }

  @Test
  void publishedPostsBecomeSearchableOnceAndOffsetsAreCommitted() throws Exception {
    String word = TestEvents.uniqueWord();
    long poster = TestEvents.randomParticipantId();
    UUID eventId = TestEvents.timeUuid();
    stack.publish(eventId, poster, "subject " + word, "a story");

    JsonArray senders = eventually(() -> get("/outbound?keywords=" + word).bodyAsJsonArray(),
        a -> a.size() == 1);
    assertEquals(new JsonArray().add("/participant/" + poster), senders);

    // the same event again (a redelivery), then a marker behind it on the same partition (same key)
    stack.publish(eventId, poster, "subject " + word, "a story");
    stack.publish(TestEvents.timeUuid(), poster, "marker " + word, "marker");
    JsonArray posts = eventually(() -> get("/outbound?posts=true&keywords=" + word).bodyAsJsonArray(),
        a -> a.size() >= 2);
    assertEquals(2, posts.size(), "one document per eventId: " + posts);
    JsonObject original = posts.getJsonObject(1);
    assertEquals("/participant/" + poster, original.getString("from"));
    assertEquals("a story", original.getString("story"));

    // a malformed event goes to the group's dead-letter topic without blocking the partition behind it
    stack.publishRaw(Long.toString(poster), "{not json");
    stack.publish(TestEvents.timeUuid(), poster, "after " + word, "after");
    eventually(() -> get("/outbound?posts=true&keywords=" + word).bodyAsJsonArray(), a -> a.size() == 3);
    List<ConsumerRecord<String, String>> dead = stack.deadLettered(1, Duration.ofSeconds(20));
    assertEquals(List.of("{not json"), dead.stream().map(ConsumerRecord::value).toList());

    Map<Integer, Long> lag = eventually(stack::uncommitted, m -> m.values().stream().allMatch(l -> l == 0));
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
    stack.publish(post);
    eventually(() -> subjects(word), s -> s.equals(List.of("retracted " + word)));
    // its client was answered 503: the retraction removes it; a replay of the post after it changes nothing
    stack.publish(new OutboundRetractedEvent(post.eventId(), poster, post.writtenMicros() + 1));
    stack.publish(post);
    // the retraction before the post it cancels (with a post in the same run of the batch): never found
    OutboundPostedEvent early = new OutboundPostedEvent(TestEvents.timeUuid(), poster, "never " + word, "t",
        System.currentTimeMillis());
    stack.publish(new OutboundRetractedEvent(early.eventId(), poster, early.writtenMicros() + 1));
    stack.publish(early);
    stack.publish(new OutboundPostedEvent(TestEvents.timeUuid(), poster, "marker " + word, "m",
        System.currentTimeMillis()));
    eventually(() -> subjects(word), s -> s.equals(List.of("marker " + word)));
    // a retry with the same Idempotency-Key made the post after all: written after the retraction, it is found
    stack.publish(post.writtenAt(post.writtenMicros() + 2));
    eventually(() -> subjects(word), s -> s.equals(List.of("marker " + word, "retracted " + word)));
    // a late retraction of the first attempt (its publisher was away meanwhile) leaves the retry's document
    stack.publish(new OutboundRetractedEvent(post.eventId(), poster, post.writtenMicros() + 1));
    stack.publish(new OutboundPostedEvent(TestEvents.timeUuid(), poster, "last " + word, "m",
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
    for (String query : new String[] {"", "?keywords=", "?keywords=%20%20", "?keywords=%C2%A0",
        "?keywords=" + "x".repeat(201),
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
    // a control character is no white space to the contract: a word that matches nothing
    HttpResponse<Buffer> control = get("/outbound?keywords=%1F");
    assertEquals(200, control.statusCode(), control.bodyAsString());
    assertEquals(new JsonArray(), control.bodyAsJsonArray());
  }

  @Test
  void healthEndpoints() {
    ConsumerHealth.assertUp(SearchServiceIT::get, "solr");
  }

  private static HttpResponse<Buffer> get(String uri) {
    return stack.get(uri);
  }
}
