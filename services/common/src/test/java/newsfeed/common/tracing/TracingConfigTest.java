package newsfeed.common.tracing;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TracingConfigTest {

  @Test
  void offUnlessEnabled() {
    TracingConfig.Parsed p = TracingConfig.parse(Map.of("TRACING_ENDPOINT", "http://jaeger:4318"));
    assertSame(TracingConfig.OFF, p.config());
    assertNull(p.problem());
  }

  @Test
  void enabledWithDefaults() {
    TracingConfig c = TracingConfig.parse(Map.of("TRACING_ENABLED", "true")).config();
    assertTrue(c.enabled());
    assertEquals("http://localhost:4318/v1/traces", c.tracesUrl());
    assertEquals(0.01, c.sampleRatio());
  }

  @Test
  void endpointAndRatioAreRead() {
    TracingConfig c = TracingConfig.parse(Map.of("TRACING_ENABLED", "true",
        "TRACING_ENDPOINT", "http://jaeger-collector.observability:4318/", "TRACING_SAMPLE_RATIO", "1")).config();
    assertEquals("http://jaeger-collector.observability:4318/v1/traces", c.tracesUrl());
    assertEquals(1.0, c.sampleRatio());
  }

  @Test
  void aBadValueTurnsTracingOffWithTheVariablesName() {
    Map<String, String> bad = Map.of(
        "TRACING_ENABLED", "yes",
        "TRACING_ENDPOINT", "jaeger:4318",
        "TRACING_SAMPLE_RATIO", "1.5");
    bad.forEach((name, value) -> {
      Map<String, String> env = new java.util.HashMap<>(Map.of("TRACING_ENABLED", "true"));
      env.put(name, value);
      TracingConfig.Parsed p = TracingConfig.parse(env);
      assertFalse(p.config().enabled(), name);
      assertTrue(p.problem() != null && p.problem().contains(name), name + ": " + p.problem());
    });
    assertTrue(TracingConfig.parse(Map.of("TRACING_ENABLED", "true", "TRACING_SAMPLE_RATIO", "NaN")).problem()
        .contains("TRACING_SAMPLE_RATIO"));
  }

  @Test
  void probesAndScrapesStartNoTrace() {
    assertTrue(ProbeFilteringSampler.isProbe("/health/ready"));
    assertTrue(ProbeFilteringSampler.isProbe("/metrics"));
    assertFalse(ProbeFilteringSampler.isProbe("/participant/1/outbound"));
    assertFalse(ProbeFilteringSampler.isProbe(null));
  }
}
