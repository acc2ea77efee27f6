package newsfeed.common.kafka;

import newsfeed.common.config.Env;

import java.util.List;
import java.util.Map;

/**
 * How a service authenticates to Kafka (docs/contracts.md): KAFKA_SECURITY_PROTOCOL (PLAINTEXT, the default, SSL,
 * SASL_PLAINTEXT or SASL_SSL), and for SASL KAFKA_SASL_MECHANISM (SCRAM-SHA-512, the default, SCRAM-SHA-256 or
 * PLAIN), KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD. Parsed once; every client of a service (producer, consumer,
 * admin, the dead-letters command) gets the same settings from {@link #applyTo}. A half-made setting stops the start
 * naming the variable: credentials without a SASL protocol would otherwise be dropped without a word.
 */
public record KafkaSecurity(String protocol, String mechanism, String username, String password) {
  /** No authentication: what a service without KAFKA_SECURITY_PROTOCOL speaks (the local stack). */
  public static final KafkaSecurity PLAINTEXT = new KafkaSecurity("PLAINTEXT", null, null, null);
  static final List<String> PROTOCOLS = List.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");
  static final Map<String, String> LOGIN_MODULES = Map.of(
      "SCRAM-SHA-512", "org.apache.kafka.common.security.scram.ScramLoginModule",
      "SCRAM-SHA-256", "org.apache.kafka.common.security.scram.ScramLoginModule",
      "PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule");

  public static KafkaSecurity fromEnv(Env e) {
    String protocol = e.string("KAFKA_SECURITY_PROTOCOL", "PLAINTEXT").toUpperCase(java.util.Locale.ROOT);
    if (!PROTOCOLS.contains(protocol)) {
      throw new IllegalArgumentException("KAFKA_SECURITY_PROTOCOL must be one of " + PROTOCOLS + ", got '"
          + protocol + "'");
    }
    String username = e.optional("KAFKA_SASL_USERNAME");
    String password = e.optional("KAFKA_SASL_PASSWORD");
    if (!protocol.startsWith("SASL_")) {
      for (String name : List.of("KAFKA_SASL_MECHANISM", "KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD")) {
        if (e.optional(name) != null) {
          throw new IllegalArgumentException(name + " is set but KAFKA_SECURITY_PROTOCOL is " + protocol
              + ": set it to SASL_PLAINTEXT or SASL_SSL to use the credentials, or unset them");
        }
      }
      return new KafkaSecurity(protocol, null, null, null);
    }
    String mechanism = e.string("KAFKA_SASL_MECHANISM", "SCRAM-SHA-512").toUpperCase(java.util.Locale.ROOT);
    if (!LOGIN_MODULES.containsKey(mechanism)) {
      throw new IllegalArgumentException("KAFKA_SASL_MECHANISM must be one of " + new java.util.TreeSet<>(
          LOGIN_MODULES.keySet()) + ", got '" + mechanism + "'");
    }
    if (username == null || username.isBlank()) {
      throw new IllegalArgumentException("KAFKA_SECURITY_PROTOCOL=" + protocol + " needs KAFKA_SASL_USERNAME");
    }
    if (password == null) {
      throw new IllegalArgumentException("KAFKA_SECURITY_PROTOCOL=" + protocol + " needs KAFKA_SASL_PASSWORD");
    }
    return new KafkaSecurity(protocol, mechanism, username.trim(), password);
  }

  public boolean sasl() {
    return mechanism != null;
  }

  /** Adds the security settings to a client's properties (nothing for PLAINTEXT: Kafka's default). */
  public void applyTo(Map<String, ? super String> clientConfig) {
    if (!"PLAINTEXT".equals(protocol)) {
      clientConfig.put("security.protocol", protocol);
    }
    if (sasl()) {
      clientConfig.put("sasl.mechanism", mechanism);
      clientConfig.put("sasl.jaas.config", jaasConfig());
    }
  }

  /**
   * The login line of {@code sasl.jaas.config}. Kafka reads its option values as Java string literals between
   * double quotes, so a backslash, a quote or a line break in the password is escaped: it can never end the value
   * and add options of its own.
   */
  String jaasConfig() {
    return LOGIN_MODULES.get(mechanism) + " required username=" + quoted(username) + " password=" + quoted(password)
        + ";";
  }

  static String quoted(String value) {
    StringBuilder out = new StringBuilder(value.length() + 2).append('"');
    for (char c : value.toCharArray()) {
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        default -> out.append(c);
      }
    }
    return out.append('"').toString();
  }

  /** Never the password. */
  @Override
  public String toString() {
    return sasl() ? protocol + " " + mechanism + " as " + username : protocol;
  }
}
