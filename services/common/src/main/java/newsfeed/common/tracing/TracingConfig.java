package newsfeed.common.tracing;

import newsfeed.common.config.Env;

import java.net.URI;
import java.util.Map;

/**
 * TRACING_ENABLED (default false), TRACING_ENDPOINT (an OTLP/HTTP receiver's base URL, default
 * http://localhost:4318; spans go to its /v1/traces) and TRACING_SAMPLE_RATIO (0..1, default 0.01: the share of
 * new traces kept; a request that arrives with a sampled parent is always kept). Unlike the rest of a service's
 * configuration a bad value does not stop the start: {@link #parse} reports it and tracing stays off.
 */
public record TracingConfig(boolean enabled, URI endpoint, double sampleRatio) {
  public static final TracingConfig OFF = new TracingConfig(false, URI.create("http://localhost:4318"), 0);

  /** The configuration, or why it is unusable (then {@code config} is {@link #OFF}). */
  public record Parsed(TracingConfig config, String problem) {
  }

  public static Parsed parse(Map<String, String> environment) {
    try {
      Env env = new Env(environment);
      if (!env.bool("TRACING_ENABLED", false)) {
        return new Parsed(OFF, null);
      }
      return new Parsed(new TracingConfig(true, endpoint(env.string("TRACING_ENDPOINT", "http://localhost:4318")),
          ratio(env.string("TRACING_SAMPLE_RATIO", "0.01"))), null);
    } catch (IllegalArgumentException e) {
      return new Parsed(OFF, e.getMessage());
    }
  }

  /** Where the exporter posts spans: the base URL plus the OTLP traces path. */
  public String tracesUrl() {
    String base = endpoint.toString();
    return (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/v1/traces";
  }

  private static URI endpoint(String value) {
    URI uri;
    try {
      uri = URI.create(value.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("TRACING_ENDPOINT must be an http(s) URL, got '" + value + "'");
    }
    if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
      throw new IllegalArgumentException("TRACING_ENDPOINT must be an http(s) URL, got '" + value + "'");
    }
    return uri;
  }

  private static double ratio(String value) {
    double r;
    try {
      r = Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      r = Double.NaN;
    }
    if (!(r >= 0 && r <= 1)) {
      throw new IllegalArgumentException("TRACING_SAMPLE_RATIO must be a number from 0 to 1, got '" + value + "'");
    }
    return r;
  }
}
