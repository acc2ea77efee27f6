package newsfeed.search;

import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.testing.StackEnv;
import newsfeed.common.testing.TestEvents;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static newsfeed.common.testing.Waiting.eventually;

/** SolrIndex against the stack's real Solr core `outbound`: indexing, idempotency and query escaping. */
class SolrIndexIT {
  private static Vertx vertx;
  private static SolrIndex index;

  @BeforeAll
  static void connect() {
    vertx = Vertx.vertx();
    index = new SolrIndex(WebClient.create(vertx), StackEnv.get("SOLR_URL"), StackEnv.get("SOLR_COLLECTION"),
        SolrCredentials.NONE, new SimpleMeterRegistry());
  }

  @AfterAll
  static void close() {
    vertx.close().await();
  }

  @Test
  void indexedPostsAreFoundByKeywordWithTheirDistinctSenders() throws Exception {
    String word = TestEvents.uniqueWord();
    long alice = TestEvents.randomParticipantId();
    long bob = alice + 1;
    OutboundPostedEvent first = event(alice, "Hello " + word, "first story");
    Thread.sleep(5);
    OutboundPostedEvent second = event(alice, "again", "the " + word + " story");
    Thread.sleep(5);
    OutboundPostedEvent third = event(bob, "bob's", "Stories of " + word + ".");
    index.index(List.of(first, second, third)).await();

    List<String> senders = eventually(() -> index.senders(KeywordQuery.parse(word), 20).await(), r -> r.size() == 2);
    assertEquals(List.of("/participant/" + alice, "/participant/" + bob), senders, "alice matched twice: first");

    // "story" matches "Stories" too (Porter stemming), so all three contain both words
    List<JsonObject> posts = index.posts(KeywordQuery.parse(word + " story"), 20).await();
    assertEquals(3, posts.size(), "all words must match: " + posts);
    assertEquals(List.of("bob's", "again", "Hello " + word), posts.stream().map(p -> p.getString("subject")).toList(),
        "newest first");
    assertEquals("/participant/" + bob, posts.get(0).getString("from"));
    assertEquals(third.occurred().toString(), posts.get(0).getString("occurred"));
    // every word must match: only the second post has "the"
    List<JsonObject> withThe = index.posts(KeywordQuery.parse(word + " the"), 20).await();
    assertEquals(1, withThe.size(), withThe.toString());
    assertEquals("again", withThe.get(0).getString("subject"));
  }

  @Test
  void aPostersOwnOccurredIsAnsweredAsGivenWhileTheServersTimeSorts() throws Exception {
    String word = TestEvents.uniqueWord();
    long poster = TestEvents.randomParticipantId();
    OutboundPostedEvent older = new OutboundPostedEvent(TestEvents.timeUuid(), poster, word, "a day",
        System.currentTimeMillis(), "2030-01-01");
    Thread.sleep(5);
    OutboundPostedEvent newer = new OutboundPostedEvent(TestEvents.timeUuid(), poster, word, "a date-time",
        System.currentTimeMillis(), "1999-12-31T23:59:59+01:00");
    Thread.sleep(5);
    OutboundPostedEvent plain = event(poster, word, "server time");
    index.index(List.of(older, newer, plain)).await();
    List<JsonObject> posts = eventually(() -> index.posts(KeywordQuery.parse(word), 20).await(), r -> r.size() == 3);
    assertEquals(List.of(plain.occurred().toString(), "1999-12-31T23:59:59+01:00", "2030-01-01"),
        posts.stream().map(p -> p.getString("occurred")).toList(), "newest first by the server's time");
  }

  @Test
  void reindexingTheSameEventReplacesItsDocument() throws Exception {
    String word = TestEvents.uniqueWord();
    OutboundPostedEvent e = event(TestEvents.randomParticipantId(), word, "once");
    index.index(List.of(e)).await();
    index.index(List.of(e)).await();
    index.index(List.of(e, e)).await();
    OutboundPostedEvent marker = event(e.participantId(), word + " marker", "");
    index.index(List.of(marker)).await();
    List<JsonObject> posts = eventually(() -> index.posts(KeywordQuery.parse(word), 20).await(), r -> r.size() >= 2);
    Thread.sleep(1500);
    posts = index.posts(KeywordQuery.parse(word), 20).await();
    assertEquals(2, posts.size(), "one document per eventId: " + posts);
  }

  @Test
  void querySyntaxInKeywordsIsSearchedLiterally() throws Exception {
    String word = TestEvents.uniqueWord();
    long poster = TestEvents.randomParticipantId();
    index.index(List.of(event(poster, word, "plain text"))).await();
    eventually(() -> index.posts(KeywordQuery.parse(word), 5).await(), r -> r.size() == 1);

    // each would match our document (or everything) if Solr interpreted it as syntax
    assertTrue(index.posts(KeywordQuery.parse("*:*"), 5).await().isEmpty(), "*:* must not match all");
    assertTrue(index.posts(KeywordQuery.parse(word + " OR zzznotthere"), 5).await().isEmpty(), "OR is a word");
    assertTrue(index.posts(KeywordQuery.parse("subject:" + word), 5).await().isEmpty(), "no field syntax");
    assertTrue(index.posts(KeywordQuery.parse("{!lucene}*:*"), 5).await().isEmpty(), "no local params");
    // AND-ed with our word: as syntax id:* would match our document; as words, "id" is not in it (other tests'
    // documents may well contain the word "id", so the query alone proves nothing on a shared index)
    assertTrue(index.senders(KeywordQuery.parse("id:* " + word), 5).await().isEmpty(), "no field syntax for senders");
    // unbalanced syntax is no error, and the word inside it is still found
    assertEquals(1, index.posts(KeywordQuery.parse("(" + word + ")\")"), 5).await().size());
    assertEquals(1, index.posts(KeywordQuery.parse(word + " \\ \" ) ] } ~ ^"), 5).await().size());
  }

  @Test
  void solrDownIsAnUnavailableFailure() {
    SolrIndex down = new SolrIndex(WebClient.create(vertx), "http://127.0.0.1:1/solr", "outbound",
        SolrCredentials.NONE, new SimpleMeterRegistry());
    assertThrows(Exception.class, () -> down.posts(KeywordQuery.parse("x"), 5).await());
    assertThrows(Exception.class, () -> down.ping().await());
  }

  private static OutboundPostedEvent event(long participantId, String subject, String story) {
    return new OutboundPostedEvent(TestEvents.timeUuid(), participantId, subject, story, System.currentTimeMillis());
  }
}
