package newsfeed.inbound;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Everything inbound reads from its environment (docs/contracts.md), parsed once at start. */
public record InboundConfig(String httpHost, int httpPort, Duration shutdownGrace,
                            List<InetSocketAddress> cassandraContactPoints, String cassandraLocalDc,
                            String cassandraKeyspace, String cassandraUsername, String cassandraPassword,
                            String kafkaBootstrapServers, String kafkaTopic, String kafkaGroupId,
                            String socialGraphUrl, int fanoutConcurrentEvents, int fanoutConcurrentWrites) {

  public static InboundConfig fromEnv(Map<String, String> env) {
    Env e = new Env(env);
    return new InboundConfig(
        e.string("HTTP_HOST", "0.0.0.0"),
        e.integer("HTTP_PORT", 8080, 1, 65535),
        Duration.ofSeconds(e.integer("SHUTDOWN_GRACE_SECONDS", 20, 0, 3600)),
        contactPoints(e.string("CASSANDRA_CONTACT_POINTS", "localhost:9042")),
        e.string("CASSANDRA_LOCAL_DC", "datacenter1"),
        e.string("CASSANDRA_KEYSPACE", "newsfeed"),
        e.optional("CASSANDRA_USERNAME"),
        e.optional("CASSANDRA_PASSWORD"),
        e.string("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"),
        e.string("KAFKA_TOPIC", "outbound-posted"),
        e.string("KAFKA_GROUP_ID", "newsfeed-inbound"),
        e.string("SOCIAL_GRAPH_URL", "http://localhost:8080"),
        e.integer("INBOUND_FANOUT_EVENTS", 16, 1, 1024),
        e.integer("INBOUND_FANOUT_WRITES", 256, 1, 4096));
  }

  static List<InetSocketAddress> contactPoints(String value) {
    List<InetSocketAddress> points = new ArrayList<>();
    for (String hostPort : value.split(",")) {
      String hp = hostPort.trim();
      int colon = hp.lastIndexOf(':');
      if (colon <= 0 || colon == hp.length() - 1) {
        throw new IllegalArgumentException("CASSANDRA_CONTACT_POINTS: expected host:port, got '" + hp + "'");
      }
      int port;
      try {
        port = Integer.parseInt(hp.substring(colon + 1));
      } catch (NumberFormatException ex) {
        throw new IllegalArgumentException("CASSANDRA_CONTACT_POINTS: bad port in '" + hp + "'");
      }
      points.add(InetSocketAddress.createUnresolved(hp.substring(0, colon), port));
    }
    return List.copyOf(points);
  }

  /** Typed reads of environment variables with defaults; a malformed value stops the start with its name. */
  static final class Env {
    private final Map<String, String> env;

    Env(Map<String, String> env) {
      this.env = env;
    }

    String string(String name, String def) {
      String v = env.get(name);
      return v == null || v.isBlank() ? def : v.trim();
    }

    String optional(String name) {
      String v = env.get(name);
      return v == null || v.isEmpty() ? null : v;
    }

    int integer(String name, int def, int min, int max) {
      String v = env.get(name);
      if (v == null || v.isBlank()) {
        return def;
      }
      try {
        int i = Integer.parseInt(v.trim());
        if (i >= min && i <= max) {
          return i;
        }
      } catch (NumberFormatException ignored) {
        // reported below
      }
      throw new IllegalArgumentException(name + " must be an integer from " + min + " to " + max + ", got '" + v + "'");
    }
  }
}
