package newsfeed.edge;

import newsfeed.common.auth.AuthConfig;
import newsfeed.common.config.Env;
import newsfeed.common.http.LoadShedding;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything edge reads from its environment (docs/contracts.md), parsed once at start. A service's URL may be a
 * comma-separated list: edge then spreads its calls over them (round robin, the next one when a connection is
 * refused), as ci/local/services.sh runs several local instances of a service; in a cluster it is one Service's URL.
 */
public record EdgeConfig(String httpHost, int httpPort, Duration shutdownGrace, int maxInFlight, int maxBodyBytes,
                         List<String> socialGraphUrls, List<String> outboundUrls, List<String> inboundUrls,
                         List<String> searchUrls, int downstreamTimeoutMs, int downstreamConnections,
                         AuthConfig auth) {

  public EdgeConfig {
    socialGraphUrls = List.copyOf(socialGraphUrls);
    outboundUrls = List.copyOf(outboundUrls);
    inboundUrls = List.copyOf(inboundUrls);
    searchUrls = List.copyOf(searchUrls);
  }

  public static EdgeConfig fromEnv(Map<String, String> env) {
    Env e = new Env(env);
    return new EdgeConfig(
        e.string("HTTP_HOST", "0.0.0.0"),
        e.integer("HTTP_PORT", 8080, 1, 65535),
        Duration.ofSeconds(e.integer("SHUTDOWN_GRACE_SECONDS", 20, 0, 3600)),
        LoadShedding.maxInFlight(e),
        // a createOutbound of the longest story must fit, even with every character escaped twice (JSON in JSON)
        e.integer("HTTP_MAX_BODY_BYTES", 131072, 1024, 16 * 1024 * 1024),
        urls(e, "SOCIAL_GRAPH_URL"),
        urls(e, "OUTBOUND_URL"),
        urls(e, "INBOUND_URL"),
        urls(e, "SEARCH_URL"),
        // longer than a post's worst case (outbound gives up on Kafka within about 9 s)
        e.integer("DOWNSTREAM_TIMEOUT_MS", 12_000, 100, 120_000),
        e.integer("DOWNSTREAM_CONNECTIONS", 32, 1, 1024),
        AuthConfig.fromEnv(e));
  }

  /**
   * One or more absolute http(s) URLs (comma-separated) without trailing slash; a typo stops the start instead of
   * failing every request.
   */
  private static List<String> urls(Env e, String name) {
    List<String> urls = new ArrayList<>();
    for (String part : e.string(name, "http://localhost:8080").split(",", -1)) {
      urls.add(url(name, part.trim()));
    }
    return urls;
  }

  private static String url(String name, String v) {
    URI uri;
    try {
      uri = URI.create(v);
    } catch (IllegalArgumentException ex) {
      throw new IllegalArgumentException(name + " is not a URL: '" + v + "'");
    }
    if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
      throw new IllegalArgumentException(name + " must be an http(s) URL (or a comma-separated list), got '" + v + "'");
    }
    return v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
  }
}
