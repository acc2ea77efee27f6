package newsfeed.common.kafka;

import newsfeed.common.config.Env;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.junit.jupiter.api.Test;

import javax.security.auth.login.AppConfigurationEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** KAFKA_SECURITY_PROTOCOL and KAFKA_SASL_*: PLAINTEXT when unset, SASL only when complete, the password quoted. */
class KafkaSecurityTest {

  private static KafkaSecurity parse(String... pairs) {
    Map<String, String> env = new HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return KafkaSecurity.fromEnv(new Env(env));
  }

  private static Map<String, Object> applied(KafkaSecurity security) {
    Map<String, Object> c = new HashMap<>(Map.of("bootstrap.servers", "k:9092"));
    security.applyTo(c);
    return c;
  }

  /** The options Kafka itself reads from the line, with its own parser. */
  private static Map<String, ?> loginOptions(String jaasConfig) {
    List<AppConfigurationEntry> entries = JaasContext.loadClientContext(
        Map.of("sasl.jaas.config", new Password(jaasConfig))).configurationEntries();
    assertEquals(1, entries.size(), jaasConfig);
    return entries.get(0).getOptions();
  }

  @Test
  void unsetIsPlaintextAndAddsNothing() {
    KafkaSecurity security = parse();
    assertEquals(KafkaSecurity.PLAINTEXT, security);
    assertEquals(Map.of("bootstrap.servers", "k:9092"), applied(security));
    assertEquals("PLAINTEXT", security.toString());
  }

  @Test
  void saslScramSha512IsTheDefaultMechanism() {
    Map<String, Object> c = applied(parse("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT",
        "KAFKA_SASL_USERNAME", "newsfeed-outbound", "KAFKA_SASL_PASSWORD", "s3cret"));
    assertEquals("SASL_PLAINTEXT", c.get("security.protocol"));
    assertEquals("SCRAM-SHA-512", c.get("sasl.mechanism"));
    String jaas = (String) c.get("sasl.jaas.config");
    assertTrue(jaas.startsWith("org.apache.kafka.common.security.scram.ScramLoginModule required "), jaas);
    assertEquals(Map.of("username", "newsfeed-outbound", "password", "s3cret"), loginOptions(jaas));
  }

  @Test
  void passwordsThatLookLikeSyntaxStayOnePassword() {
    for (String password : new String[] {"a\"b", "back\\slash\\", "semi;colon\" admin=\"true", "two\nlines\r",
        "end\\\"", "spaces and ünïcödé", "// not a comment", "=", "'single'"}) {
      KafkaSecurity security = parse("KAFKA_SECURITY_PROTOCOL", "sasl_ssl", "KAFKA_SASL_MECHANISM", "PLAIN",
          "KAFKA_SASL_USERNAME", "u", "KAFKA_SASL_PASSWORD", password);
      Map<String, ?> options = loginOptions(security.jaasConfig());
      assertEquals(Map.of("username", "u", "password", password), options, security.jaasConfig());
      assertTrue(security.jaasConfig().startsWith("org.apache.kafka.common.security.plain.PlainLoginModule"));
      assertEquals("SASL_SSL", applied(security).get("security.protocol"));
    }
  }

  @Test
  void sslWithoutSaslSetsOnlyTheProtocol() {
    assertEquals(Map.of("bootstrap.servers", "k:9092", "security.protocol", "SSL"),
        applied(parse("KAFKA_SECURITY_PROTOCOL", "SSL")));
  }

  @Test
  void aHalfMadeSettingIsRefusedNamingTheVariable() {
    assertMessage("KAFKA_SASL_USERNAME", () -> parse("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT",
        "KAFKA_SASL_PASSWORD", "p"));
    assertMessage("KAFKA_SASL_PASSWORD", () -> parse("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT",
        "KAFKA_SASL_USERNAME", "u"));
    assertMessage("KAFKA_SASL_USERNAME is set", () -> parse("KAFKA_SASL_USERNAME", "u", "KAFKA_SASL_PASSWORD", "p"));
    assertMessage("KAFKA_SASL_PASSWORD is set", () -> parse("KAFKA_SECURITY_PROTOCOL", "SSL",
        "KAFKA_SASL_PASSWORD", "p"));
    assertMessage("KAFKA_SECURITY_PROTOCOL", () -> parse("KAFKA_SECURITY_PROTOCOL", "SASL"));
    assertMessage("KAFKA_SASL_MECHANISM", () -> parse("KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
        "KAFKA_SASL_MECHANISM", "GSSAPI", "KAFKA_SASL_USERNAME", "u", "KAFKA_SASL_PASSWORD", "p"));
  }

  @Test
  void thePasswordIsNeverPrinted() {
    KafkaSecurity security = parse("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT", "KAFKA_SASL_USERNAME", "u",
        "KAFKA_SASL_PASSWORD", "hunter2");
    assertEquals("SASL_PLAINTEXT SCRAM-SHA-512 as u", security.toString());
    assertFalse(security.toString().contains("hunter2"));
  }

  @Test
  void everyClientOfAServiceGetsTheSameSettings() {
    KafkaSecurity security = parse("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT", "KAFKA_SASL_USERNAME", "u",
        "KAFKA_SASL_PASSWORD", "p");
    for (Map<String, String> client : List.of(
        EventConsumer.consumerConfig("inbound", "k:9092", security, "g", 100, ConsumerTuning.kafkaDefaults()),
        DeadLetters.producerConfig("k:9092", security), KafkaAdmin.config("k:9092", security))) {
      assertEquals("SASL_PLAINTEXT", client.get("security.protocol"));
      assertEquals("SCRAM-SHA-512", client.get("sasl.mechanism"));
      assertEquals(security.jaasConfig(), client.get("sasl.jaas.config"));
      assertEquals("k:9092", client.get("bootstrap.servers"));
    }
  }

  @Test
  void theConsumersReadThemWithTheirOtherSettings() {
    EventConsumerConfig c = EventConsumerConfig.fromEnv(new Env(Map.of("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT",
        "KAFKA_SASL_USERNAME", "newsfeed-search", "KAFKA_SASL_PASSWORD", "p")), "newsfeed-search");
    assertEquals("SASL_PLAINTEXT SCRAM-SHA-512 as newsfeed-search", c.security().toString());
    assertFalse(c.toString().contains("password=p"), "a consumer's settings print no password: " + c);
  }

  private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable parse) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, parse);
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
