package newsfeed.outbound;

import newsfeed.common.testing.TestTokens;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OutboundConfigTest {

  @Test
  void defaultsAreTheContractsDefaults() {
    OutboundConfig c = OutboundConfig.fromEnv(Map.of());
    assertEquals("0.0.0.0", c.httpHost());
    assertEquals(8080, c.httpPort());
    assertEquals(Duration.ofSeconds(20), c.shutdownGrace());
    assertEquals(65536, c.maxBodyBytes());
    assertEquals("localhost", c.cassandra().contactPoints().get(0).getHostString());
    assertEquals(9042, c.cassandra().contactPoints().get(0).getPort());
    assertEquals("datacenter1", c.cassandra().localDc());
    assertEquals("newsfeed", c.cassandra().keyspace());
    assertNull(c.cassandra().username());
    assertTrue(c.cassandra().ioOnEventLoop());
    assertEquals("localhost:9092", c.kafkaBootstrapServers());
    assertEquals("outbound-posted", c.kafkaTopic());
    assertEquals("PLAINTEXT", c.kafkaSecurity().protocol());
    assertTrue(!c.auth().enabled(), "the write API is open unless AUTH_ENABLED");
  }

  @Test
  void authenticationIsReadAndAHalfConfigurationStopsTheStart() {
    TestTokens issuer = TestTokens.rsa();
    OutboundConfig c = OutboundConfig.fromEnv(issuer.env());
    assertTrue(c.auth().enabled());
    assertEquals(TestTokens.ISSUER, c.auth().issuer());
    assertTrue(!c.toString().contains("BEGIN"), "keys are not logged: " + c);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> OutboundConfig.fromEnv(Map.of("AUTH_ENABLED", "true", "AUTH_JWT_ISSUER", TestTokens.ISSUER)));
    assertTrue(e.getMessage().contains("AUTH_JWT_PUBLIC_KEY"), e.getMessage());
  }

  @Test
  void everyVariableIsRead() {
    OutboundConfig c = OutboundConfig.fromEnv(Map.ofEntries(Map.entry("HTTP_HOST", "127.0.0.1"),
        Map.entry("HTTP_PORT", "18082"), Map.entry("SHUTDOWN_GRACE_SECONDS", "3"),
        Map.entry("HTTP_MAX_BODY_BYTES", "2048"), Map.entry("CASSANDRA_CONTACT_POINTS", "c1:19042,c2:19043"),
        Map.entry("CASSANDRA_LOCAL_DC", "dc2"), Map.entry("CASSANDRA_KEYSPACE", "ks"),
        Map.entry("CASSANDRA_USERNAME", "u"), Map.entry("CASSANDRA_PASSWORD", "secret"),
        Map.entry("CASSANDRA_IO_ON_EVENT_LOOP", "false"),
        Map.entry("KAFKA_BOOTSTRAP_SERVERS", "k1:19092"), Map.entry("KAFKA_TOPIC", "t"),
        Map.entry("KAFKA_SECURITY_PROTOCOL", "SASL_SSL"), Map.entry("KAFKA_SASL_USERNAME", "newsfeed-outbound"),
        Map.entry("KAFKA_SASL_PASSWORD", "kafka-secret")));
    assertEquals("127.0.0.1", c.httpHost());
    assertEquals(18082, c.httpPort());
    assertEquals(Duration.ofSeconds(3), c.shutdownGrace());
    assertEquals(2048, c.maxBodyBytes());
    assertEquals(2, c.cassandra().contactPoints().size());
    assertEquals(19043, c.cassandra().contactPoints().get(1).getPort());
    assertEquals("dc2", c.cassandra().localDc());
    assertEquals("ks", c.cassandra().keyspace());
    assertEquals("u", c.cassandra().username());
    assertTrue(!c.cassandra().ioOnEventLoop());
    assertEquals("k1:19092", c.kafkaBootstrapServers());
    assertEquals("t", c.kafkaTopic());
    assertEquals("SASL_SSL SCRAM-SHA-512 as newsfeed-outbound", c.kafkaSecurity().toString());
    assertTrue(!c.toString().contains("secret"), "the password must not be logged: " + c);
  }

  @Test
  void malformedValuesNameTheVariable() {
    for (Map<String, String> env : new Map[] {Map.of("HTTP_PORT", "http"), Map.of("HTTP_PORT", "0"),
        Map.of("SHUTDOWN_GRACE_SECONDS", "-1"), Map.of("HTTP_MAX_BODY_BYTES", "10"),
        Map.of("CASSANDRA_CONTACT_POINTS", "nohost"), Map.of("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT")}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OutboundConfig.fromEnv(env));
      String name = env.keySet().iterator().next();
      assertTrue(e.getMessage().contains(name), e.getMessage());
    }
  }
}
