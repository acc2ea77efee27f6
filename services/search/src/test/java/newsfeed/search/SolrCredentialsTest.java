package newsfeed.search;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.config.Env;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SOLR_USERNAME / SOLR_PASSWORD: both or neither, and then on every request search sends to Solr. */
class SolrCredentialsTest {
  private static Vertx vertx;
  private static HttpServer solr;
  private static final List<String> AUTHORIZATIONS = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void fakeSolr() {
    vertx = Vertx.vertx();
    // answers what SolrIndex expects of a select and an update, and notes the Authorization header of each request
    solr = vertx.createHttpServer().requestHandler(req -> {
      AUTHORIZATIONS.add(String.valueOf(req.getHeader("Authorization")));
      req.response().putHeader("Content-Type", "application/json")
          .end("{\"responseHeader\":{\"status\":0},\"response\":{\"docs\":[]}}");
    }).listen(0, "127.0.0.1").await();
  }

  @AfterAll
  static void close() {
    vertx.close().await();
  }

  private static SolrCredentials parse(Map<String, String> env) {
    return SolrCredentials.fromEnv(new Env(env));
  }

  @Test
  void unsetMeansNoCredentials() {
    assertEquals(SolrCredentials.NONE, parse(Map.of()));
    assertNull(SolrCredentials.NONE.authorization());
  }

  @Test
  void theHeaderIsBasicOfUserColonPasswordInUtf8() {
    SolrCredentials c = parse(Map.of("SOLR_USERNAME", "newsfeed-search", "SOLR_PASSWORD", "pä:ss word"));
    String expected = "Basic " + Base64.getEncoder().encodeToString(
        "newsfeed-search:pä:ss word".getBytes(StandardCharsets.UTF_8));
    assertEquals(expected, c.authorization());
    assertEquals("basic as newsfeed-search", c.toString());
    assertFalse(c.toString().contains("ss word"), "the password is never printed");
  }

  @Test
  void searchReadsThemOnceWithItsConfiguration() {
    SearchConfig config = SearchConfig.fromEnv(Map.of("SOLR_USERNAME", "newsfeed-search", "SOLR_PASSWORD", "secret"));
    assertEquals("basic as newsfeed-search", config.solrCredentials().toString());
    assertFalse(config.toString().contains("secret"), "the configuration prints no password: " + config);
    assertEquals(SolrCredentials.NONE, SearchConfig.fromEnv(Map.of()).solrCredentials());
  }

  @Test
  void halfOrAmbiguousCredentialsAreRefused() {
    for (Map<String, String> env : List.of(Map.of("SOLR_USERNAME", "u"), Map.of("SOLR_PASSWORD", "p"),
        Map.of("SOLR_USERNAME", "a:b", "SOLR_PASSWORD", "p"))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(env));
      assertTrue(e.getMessage().contains("SOLR_USERNAME"), e.getMessage());
    }
  }

  @Test
  void everyRequestToSolrCarriesThem() {
    SolrCredentials c = parse(Map.of("SOLR_USERNAME", "newsfeed-search", "SOLR_PASSWORD", "secret"));
    String url = "http://127.0.0.1:" + solr.actualPort() + "/solr";
    SolrIndex index = new SolrIndex(WebClient.create(vertx), url, "outbound", c, new SimpleMeterRegistry());
    AUTHORIZATIONS.clear();
    index.ping().await();
    index.posts(KeywordQuery.parse("hello"), 5).await();
    index.index(List.of()).await();
    assertEquals(List.of(c.authorization(), c.authorization(), c.authorization()), AUTHORIZATIONS);

    SolrIndex open = new SolrIndex(WebClient.create(vertx), url, "outbound", SolrCredentials.NONE,
        new SimpleMeterRegistry());
    AUTHORIZATIONS.clear();
    open.ping().await();
    assertEquals(List.of("null"), AUTHORIZATIONS, "no Authorization header without credentials");
  }
}
