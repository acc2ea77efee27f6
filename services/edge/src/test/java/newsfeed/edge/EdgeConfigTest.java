package newsfeed.edge;

import newsfeed.common.auth.AuthConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EdgeConfigTest {

  @Test
  void defaultsAreTheContractsDefaults() {
    EdgeConfig c = EdgeConfig.fromEnv(Map.of());
    assertEquals("0.0.0.0", c.httpHost());
    assertEquals(8080, c.httpPort());
    assertEquals(Duration.ofSeconds(20), c.shutdownGrace());
    assertEquals(512, c.maxInFlight());
    assertEquals(131072, c.maxBodyBytes());
    assertEquals(List.of("http://localhost:8080"), c.socialGraphUrls());
    assertEquals(12_000, c.downstreamTimeoutMs());
    assertEquals(32, c.downstreamConnections());
  }

  @Test
  void everyVariableIsRead() {
    Map<String, String> env = new java.util.HashMap<>(Map.of("HTTP_HOST", "127.0.0.1", "HTTP_PORT", "18085",
        "SHUTDOWN_GRACE_SECONDS", "3", "HTTP_MAX_BODY_BYTES", "4096",
        "SOCIAL_GRAPH_URL", "http://sg:8080/", "OUTBOUND_URL", "http://ob:8080",
        "INBOUND_URL", "https://ib", "SEARCH_URL", "http://se:1",
        "DOWNSTREAM_TIMEOUT_MS", "500", "DOWNSTREAM_CONNECTIONS", "4"));
    env.put("HTTP_MAX_IN_FLIGHT", "64");
    EdgeConfig c = EdgeConfig.fromEnv(env);
    assertEquals(new EdgeConfig("127.0.0.1", 18085, Duration.ofSeconds(3), 64, 4096, List.of("http://sg:8080"),
        List.of("http://ob:8080"), List.of("https://ib"), List.of("http://se:1"), 500, 4, AuthConfig.OFF), c);
  }

  @Test
  void aServiceUrlMayBeAListOfInstances() {
    EdgeConfig c = EdgeConfig.fromEnv(Map.of("OUTBOUND_URL", "http://127.0.0.1:18082, http://127.0.0.1:18092/"));
    assertEquals(List.of("http://127.0.0.1:18082", "http://127.0.0.1:18092"), c.outboundUrls());
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> EdgeConfig.fromEnv(Map.of("INBOUND_URL", "http://ib:1,"))).getMessage().contains("INBOUND_URL"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> EdgeConfig.fromEnv(Map.of("SEARCH_URL", "http://se:1,se:2"))).getMessage().contains("SEARCH_URL"));
  }

  @Test
  void aBadValueNamesItsVariable() {
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> EdgeConfig.fromEnv(Map.of("SEARCH_URL", "search:8080"))).getMessage().contains("SEARCH_URL"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> EdgeConfig.fromEnv(Map.of("INBOUND_URL", "http://"))).getMessage().contains("INBOUND_URL"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> EdgeConfig.fromEnv(Map.of("DOWNSTREAM_TIMEOUT_MS", "0"))).getMessage()
        .contains("DOWNSTREAM_TIMEOUT_MS"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> EdgeConfig.fromEnv(Map.of("HTTP_MAX_IN_FLIGHT", "-1"))).getMessage().contains("HTTP_MAX_IN_FLIGHT"));
  }
}
