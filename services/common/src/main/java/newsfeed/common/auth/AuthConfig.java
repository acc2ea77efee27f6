package newsfeed.common.auth;

import newsfeed.common.config.Env;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The bearer tokens the write routes require (docs/contracts.md, "Authentication"): off unless AUTH_ENABLED=true;
 * then AUTH_JWT_PUBLIC_KEY (PEM, one or more public keys: a rotation keeps the old one beside the new),
 * AUTH_JWT_ISSUER (required), AUTH_JWT_AUDIENCE (optional, comma-separated), AUTH_JWT_ALGORITHM (RS256) and
 * AUTH_JWT_LEEWAY_SECONDS (30). Anything missing or malformed stops the start naming the variable, and so does an
 * AUTH_JWT_* variable without AUTH_ENABLED: a half-configured auth never runs open without saying so.
 */
public record AuthConfig(boolean enabled, String algorithm, List<String> publicKeys, String issuer,
                         List<String> audiences, int leewaySeconds) {
  /** The write API open: no token is asked for. */
  public static final AuthConfig OFF = new AuthConfig(false, null, List.of(), null, List.of(), 0);
  /** Asymmetric algorithms only: the services verify tokens, they must never hold what signs them. */
  static final Set<String> ALGORITHMS = Set.of("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256",
      "ES384", "ES512", "EdDSA");
  private static final List<String> SETTINGS = List.of("AUTH_JWT_PUBLIC_KEY", "AUTH_JWT_ISSUER", "AUTH_JWT_AUDIENCE",
      "AUTH_JWT_ALGORITHM", "AUTH_JWT_LEEWAY_SECONDS");

  public AuthConfig {
    publicKeys = List.copyOf(publicKeys);
    audiences = List.copyOf(audiences);
  }

  public static AuthConfig fromEnv(Env e) {
    boolean said = e.optional("AUTH_ENABLED") != null;
    if (!e.bool("AUTH_ENABLED", false)) {
      for (String name : SETTINGS) {
        if (!said && e.optional(name) != null) {
          throw new IllegalArgumentException(name + " is set but AUTH_ENABLED is not: set AUTH_ENABLED=true to "
              + "require tokens on writes, or AUTH_ENABLED=false to run the write API open on purpose");
        }
      }
      return OFF;
    }
    String algorithm = e.string("AUTH_JWT_ALGORITHM", "RS256");
    if (!ALGORITHMS.contains(algorithm)) {
      throw new IllegalArgumentException("AUTH_JWT_ALGORITHM must be one of " + new java.util.TreeSet<>(ALGORITHMS)
          + ", got '" + algorithm + "'");
    }
    String pem = e.optional("AUTH_JWT_PUBLIC_KEY");
    if (pem == null) {
      throw new IllegalArgumentException("AUTH_ENABLED=true needs AUTH_JWT_PUBLIC_KEY, the PEM public key that "
          + "verifies the tokens");
    }
    String issuer = e.optional("AUTH_JWT_ISSUER");
    if (issuer == null || issuer.isBlank()) {
      throw new IllegalArgumentException("AUTH_ENABLED=true needs AUTH_JWT_ISSUER, the iss every token must carry");
    }
    return new AuthConfig(true, algorithm, PublicKeys.parse("AUTH_JWT_PUBLIC_KEY", pem, algorithm), issuer.trim(),
        list(e.string("AUTH_JWT_AUDIENCE", "")), e.integer("AUTH_JWT_LEEWAY_SECONDS", 30, 0, 600));
  }

  private static List<String> list(String commaSeparated) {
    List<String> items = new ArrayList<>();
    for (String item : commaSeparated.split(",")) {
      if (!item.isBlank()) {
        items.add(item.trim());
      }
    }
    return items;
  }

  /** What a start log shows: the rules, not the keys. */
  @Override
  public String toString() {
    if (!enabled) {
      return "off (writes are open)";
    }
    return "jwt " + algorithm + " iss=" + issuer + (audiences.isEmpty() ? "" : " aud=" + audiences)
        + " keys=" + publicKeys.size() + " leeway=" + leewaySeconds + "s";
  }
}
