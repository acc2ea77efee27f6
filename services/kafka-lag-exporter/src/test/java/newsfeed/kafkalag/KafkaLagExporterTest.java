package newsfeed.kafkalag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class KafkaLagExporterTest {

  @Test
  void plaintextNeedsOnlyTheBootstrapServers() throws Exception {
    Properties p = KafkaLagExporter.client(Map.of("KAFKA_BOOTSTRAP_SERVERS", " kafka:9092 "));
    assertEquals("kafka:9092", p.get("bootstrap.servers"));
    assertFalse(p.containsKey("sasl.jaas.config"));
  }

  @Test
  void missingBootstrapServersIsNamed() {
    var e = assertThrows(IllegalArgumentException.class, () -> KafkaLagExporter.client(Map.of()));
    assertTrue(e.getMessage().startsWith("KAFKA_BOOTSTRAP_SERVERS"), e.getMessage());
  }

  @Test
  void saslBuildsTheLoginOfTheMechanismWithItsQuotesEscaped() throws Exception {
    Properties p = KafkaLagExporter.client(Map.of("KAFKA_BOOTSTRAP_SERVERS", "k:9092", "KAFKA_SECURITY_PROTOCOL",
        "sasl_plaintext", "KAFKA_SASL_USERNAME", "admin", "KAFKA_SASL_PASSWORD", "p\"w\\d"));
    assertEquals("SASL_PLAINTEXT", p.get("security.protocol"));
    assertEquals("SCRAM-SHA-512", p.get("sasl.mechanism"));
    assertEquals("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" "
        + "password=\"p\\\"w\\\\d\";", p.get("sasl.jaas.config"));
  }

  @Test
  void saslWithoutCredentialsOrWithAnUnknownMechanismIsRefused() {
    var noPassword = assertThrows(IllegalArgumentException.class, () -> KafkaLagExporter.client(Map.of(
        "KAFKA_BOOTSTRAP_SERVERS", "k:9092", "KAFKA_SECURITY_PROTOCOL", "SASL_SSL", "KAFKA_SASL_USERNAME", "admin")));
    assertTrue(noPassword.getMessage().contains("KAFKA_SASL_PASSWORD"), noPassword.getMessage());
    var mechanism = assertThrows(IllegalArgumentException.class, () -> KafkaLagExporter.client(Map.of(
        "KAFKA_BOOTSTRAP_SERVERS", "k:9092", "KAFKA_SECURITY_PROTOCOL", "SASL_SSL", "KAFKA_SASL_MECHANISM", "GSSAPI",
        "KAFKA_SASL_USERNAME", "a", "KAFKA_SASL_PASSWORD", "b")));
    assertTrue(mechanism.getMessage().startsWith("KAFKA_SASL_MECHANISM"), mechanism.getMessage());
    assertThrows(IllegalArgumentException.class, () -> KafkaLagExporter.client(
        Map.of("KAFKA_BOOTSTRAP_SERVERS", "k:9092", "KAFKA_SECURITY_PROTOCOL", "SSL")));
  }

  @Test
  void theHttpPortIsAPortNumber() {
    assertEquals(8080, KafkaLagExporter.port("8080"));
    for (String bad : new String[] {"http", "0", "65536", "-1"}) {
      var e = assertThrows(IllegalArgumentException.class, () -> KafkaLagExporter.port(bad));
      assertTrue(e.getMessage().startsWith("HTTP_PORT"), e.getMessage());
    }
  }

  @Test
  void labelValuesAreEscapedForTheTextFormat() {
    assertEquals("{consumergroup=\"a\\\"b\\\\c\\nd\",topic=\"t\"}",
        KafkaLagExporter.labels("consumergroup", "a\"b\\c\nd", "topic", "t"));
  }
}
