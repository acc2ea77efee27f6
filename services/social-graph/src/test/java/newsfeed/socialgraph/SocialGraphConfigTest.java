package newsfeed.socialgraph;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SocialGraphConfigTest {

  @Test
  void defaultsAreTheContractOnes() {
    SocialGraphConfig c = SocialGraphConfig.fromEnv(Map.of());
    assertEquals("0.0.0.0", c.httpHost());
    assertEquals(8080, c.httpPort());
    assertEquals(Duration.ofSeconds(20), c.shutdownGrace());
    assertEquals(512, c.maxInFlight(), "HTTP_MAX_IN_FLIGHT");
    assertEquals(65536, c.httpMaxBodyBytes());
    assertEquals("localhost", c.pgHost());
    assertEquals(5432, c.pgPort());
    assertEquals("newsfeed", c.pgDatabase());
    assertEquals("newsfeed", c.pgUser());
    assertNull(c.pgPassword());
    assertEquals(16, c.pgPoolSize());
    assertEquals("redis://localhost:6379", c.redis().url());
    assertNull(c.redis().password());
    assertEquals(Duration.ofSeconds(300), c.redisTtl());
    assertEquals(Duration.ofMillis(250), c.redis().timeout());
    assertEquals(10_000, c.maxFriends());
    assertFalse(c.auth().enabled());
  }

  @Test
  void everyVariableIsRead() {
    SocialGraphConfig c = SocialGraphConfig.fromEnv(Map.ofEntries(
        Map.entry("HTTP_HOST", "127.0.0.1"), Map.entry("HTTP_PORT", "18081"),
        Map.entry("SHUTDOWN_GRACE_SECONDS", "5"), Map.entry("HTTP_MAX_BODY_BYTES", "1024"),
        Map.entry("PG_HOST", "pg"), Map.entry("PG_PORT", "15432"), Map.entry("PG_DATABASE", "db"),
        Map.entry("PG_USER", "u"), Map.entry("PG_PASSWORD", "secret"), Map.entry("PG_POOL_SIZE", "4"),
        Map.entry("REDIS_URL", "redis://cache:16379/1"), Map.entry("REDIS_PASSWORD", "rsecret"),
        Map.entry("REDIS_TTL_SECONDS", "60"), Map.entry("REDIS_TIMEOUT_MS", "100"),
        Map.entry("SOCIAL_GRAPH_MAX_FRIENDS", "0"), Map.entry("HTTP_MAX_IN_FLIGHT", "0")));
    assertEquals(18081, c.httpPort());
    assertEquals(0, c.maxInFlight(), "0: no bound");
    assertEquals(1024, c.httpMaxBodyBytes());
    assertEquals("pg", c.pgConnectOptions().getHost());
    assertEquals(15432, c.pgConnectOptions().getPort());
    assertEquals("db", c.pgConnectOptions().getDatabase());
    assertEquals("u", c.pgConnectOptions().getUser());
    assertEquals("secret", c.pgConnectOptions().getPassword());
    assertEquals(4, c.pgPoolSize());
    assertEquals("redis://cache:16379/1", c.redis().options().getEndpoint());
    assertEquals("rsecret", c.redis().options().getPassword());
    assertEquals(Duration.ofSeconds(60), c.redisTtl());
    assertEquals(Duration.ofMillis(100), c.redis().timeout());
    assertEquals(0, c.maxFriends(), "0: no limit");
  }

  @Test
  void malformedValuesStopTheStartNamingTheVariable() {
    for (Map<String, String> bad : new Map[] {Map.of("HTTP_PORT", "http"), Map.of("HTTP_PORT", "70000"),
        Map.of("PG_POOL_SIZE", "0"), Map.of("PG_PORT", "-1"), Map.of("REDIS_TTL_SECONDS", "0"),
        Map.of("HTTP_MAX_BODY_BYTES", "12"), Map.of("REDIS_URL", "http://cache:6379"),
        Map.of("REDIS_URL", "cache:6379"), Map.of("REDIS_TIMEOUT_MS", "fast"),
        Map.of("SOCIAL_GRAPH_MAX_FRIENDS", "-1"), Map.of("SOCIAL_GRAPH_MAX_FRIENDS", "many"),
        Map.of("AUTH_ENABLED", "on"), Map.of("HTTP_MAX_IN_FLIGHT", "-1"), Map.of("HTTP_MAX_IN_FLIGHT", "lots"),
        Map.of("AUTH_JWT_ISSUER", "https://issuer.test")}) {
      String name = bad.keySet().iterator().next();
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> SocialGraphConfig.fromEnv(bad), bad.toString());
      assertTrue(e.getMessage().contains(name), e.getMessage());
    }
  }

  @Test
  void passwordsNeverAppearInTheLog() {
    SocialGraphConfig c = SocialGraphConfig.fromEnv(Map.of("PG_PASSWORD", "pg-secret",
        "REDIS_URL", "redis://:url-secret@cache:6379", "REDIS_PASSWORD", "redis-secret"));
    String text = c.toString();
    assertFalse(text.contains("secret"), text);
    assertTrue(text.contains("cache:6379"), text);
  }
}
