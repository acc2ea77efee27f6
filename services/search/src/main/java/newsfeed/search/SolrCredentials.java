package newsfeed.search;

import newsfeed.common.config.Env;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Search's Solr user (SOLR_USERNAME, SOLR_PASSWORD, docs/contracts.md): both or neither. With them every request to
 * Solr carries HTTP Basic credentials (Solr's BasicAuthPlugin); without them the requests go unauthenticated, as to
 * the local stack's Solr. The header is built once, at start.
 */
public record SolrCredentials(String username, String password) {
  /** No credentials: requests without an Authorization header. */
  public static final SolrCredentials NONE = new SolrCredentials(null, null);

  public static SolrCredentials fromEnv(Env e) {
    String username = e.optional("SOLR_USERNAME");
    String password = e.optional("SOLR_PASSWORD");
    if (username == null && password == null) {
      return NONE;
    }
    if (username == null || username.isBlank()) {
      throw new IllegalArgumentException("SOLR_PASSWORD is set but SOLR_USERNAME is not: set both or neither");
    }
    if (password == null) {
      throw new IllegalArgumentException("SOLR_USERNAME is set but SOLR_PASSWORD is not: set both or neither");
    }
    // Basic auth splits user and password at the first colon
    if (username.contains(":")) {
      throw new IllegalArgumentException("SOLR_USERNAME must not contain ':', got '" + username + "'");
    }
    return new SolrCredentials(username.trim(), password);
  }

  public boolean present() {
    return username != null;
  }

  /** The Authorization header's value (RFC 7617, UTF-8), or null without credentials. */
  public String authorization() {
    if (!present()) {
      return null;
    }
    return "Basic " + Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** Never the password. */
  @Override
  public String toString() {
    return present() ? "basic as " + username : "none";
  }
}
