package newsfeed.common.kafka;

import io.vertx.core.Vertx;
import io.vertx.kafka.admin.KafkaAdminClient;

import java.util.HashMap;
import java.util.Map;

/**
 * The admin client of a service's Kafka checks: outbound's /health/events and the consumers' group monitor (broker
 * check and lag). Its timeouts are short so that a check fails within seconds while the broker is away, instead of
 * after the client's default minute.
 */
public final class KafkaAdmin {
  private KafkaAdmin() {
  }

  public static KafkaAdminClient create(Vertx vertx, String bootstrapServers, KafkaSecurity security) {
    return KafkaAdminClient.create(vertx, config(bootstrapServers, security));
  }

  static Map<String, String> config(String bootstrapServers, KafkaSecurity security) {
    Map<String, String> c = new HashMap<>();
    c.put("bootstrap.servers", bootstrapServers);
    c.put("request.timeout.ms", "5000");
    c.put("default.api.timeout.ms", "10000");
    security.applyTo(c);
    return c;
  }
}
