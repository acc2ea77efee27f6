package newsfeed.common.kafka;

import newsfeed.common.config.Env;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConsumerTuningTest {

  private static Map<String, String> consumerProperties(Map<String, String> env) {
    return EventConsumer.consumerConfig("inbound", "k:9092", KafkaSecurity.PLAINTEXT, "g", 100,
        ConsumerTuning.fromEnv(new Env(env)));
  }

  @Test
  void byDefaultTheBrokerWaitsUpTo20MillisecondsFor16KiB() {
    Map<String, String> c = consumerProperties(Map.of());
    assertEquals("16384", c.get("fetch.min.bytes"));
    assertEquals("20", c.get("fetch.max.wait.ms"));
  }

  @Test
  void theVariablesBecomeTheFetchSettings() {
    Map<String, String> c = consumerProperties(Map.of("KAFKA_FETCH_MIN_BYTES", "1",
        "KAFKA_FETCH_MAX_WAIT_MS", "500"));
    assertEquals("1", c.get("fetch.min.bytes"));
    assertEquals("500", c.get("fetch.max.wait.ms"));
    assertEquals("false", c.get("enable.auto.commit"), "the tuning must not replace the other settings");
  }

  @Test
  void outOfRangeValuesAreRejectedWithTheirName() {
    for (Map.Entry<String, String> bad : Map.of("KAFKA_FETCH_MIN_BYTES", "0", "KAFKA_FETCH_MAX_WAIT_MS", "-1")
        .entrySet()) {
      Map<String, String> env = new HashMap<>(Map.of(bad.getKey(), bad.getValue()));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> ConsumerTuning.fromEnv(new Env(env)));
      assertTrue(e.getMessage().contains(bad.getKey()), e.getMessage());
    }
    assertThrows(IllegalArgumentException.class,
        () -> ConsumerTuning.fromEnv(new Env(Map.of("KAFKA_FETCH_MAX_WAIT_MS", "soon"))));
  }
}
