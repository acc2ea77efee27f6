package newsfeed.edge;

import newsfeed.common.Env;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

/** Everything edge reads from its environment (docs/contracts.md), parsed once at start. */
public record EdgeConfig(String httpHost, int httpPort, Duration shutdownGrace, int maxBodyBytes,
                         String socialGraphUrl, String outboundUrl, String inboundUrl, String searchUrl,
                         int downstreamTimeoutMs, int downstreamConnections) {

  public static EdgeConfig fromEnv(Map<String, String> env) {
    Env e = new Env(env);
    return new EdgeConfig(
        e.string("HTTP_HOST", "0.0.0.0"),
        e.integer("HTTP_PORT", 8080, 1, 65535),
        Duration.ofSeconds(e.integer("SHUTDOWN_GRACE_SECONDS", 20, 0, 3600)),
        // a createOutbound of the longest story must fit, even with every character escaped twice (JSON in JSON)
        e.integer("HTTP_MAX_BODY_BYTES", 131072, 1024, 16 * 1024 * 1024),
        url(e, "SOCIAL_GRAPH_URL"),
        url(e, "OUTBOUND_URL"),
        url(e, "INBOUND_URL"),
        url(e, "SEARCH_URL"),
        // longer than a post's worst case (outbound gives up on Kafka within about 9 s)
        e.integer("DOWNSTREAM_TIMEOUT_MS", 12_000, 100, 120_000),
        e.integer("DOWNSTREAM_CONNECTIONS", 32, 1, 1024));
  }

  /** An absolute http(s) URL without trailing slash; a typo stops the start instead of failing every request. */
  private static String url(Env e, String name) {
    String v = e.string(name, "http://localhost:8080");
    URI uri;
    try {
      uri = URI.create(v);
    } catch (IllegalArgumentException ex) {
      throw new IllegalArgumentException(name + " is not a URL: '" + v + "'");
    }
    if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
      throw new IllegalArgumentException(name + " must be an http(s) URL, got '" + v + "'");
    }
    return v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
  }
}
