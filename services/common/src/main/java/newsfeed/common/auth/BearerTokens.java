package newsfeed.common.auth;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.NoSuchKeyIdException;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import newsfeed.common.http.ApiError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SignatureException;
import java.util.Locale;

/**
 * Verifies the `Authorization: Bearer <JWT>` of a write with vertx-auth-jwt, offline, against the configured
 * public keys: the signature (with the configured algorithm only), `exp` (required), `nbf` and `iat` within the
 * leeway, `iss`, and `aud` when audiences are configured; `sub` is required. A missing token is a 401
 * missing_token, any other failure a 401 invalid_token, both with a `WWW-Authenticate: Bearer` challenge
 * (RFC 6750). While authentication is off every caller is {@link Caller#ANYONE} and nothing is read.
 */
public final class BearerTokens {
  /** The challenge of a 401 without a token (RFC 6750, section 3). */
  public static final String CHALLENGE = "Bearer realm=\"newsfeed\"";
  private static final String SCHEME = "bearer ";

  private static final Logger LOG = LoggerFactory.getLogger(BearerTokens.class);
  private final JWTAuth jwt;

  private BearerTokens(JWTAuth jwt) {
    this.jwt = jwt;
  }

  /** The verifier of {@code config}; its start log line says whether writes need a token. */
  public static BearerTokens create(Vertx vertx, AuthConfig config) {
    LOG.info("writes: {}", config.enabled() ? "a bearer token is required (" + config + ")"
        : "open, no token asked for (AUTH_ENABLED is not true)");
    if (!config.enabled()) {
      return new BearerTokens(null);
    }
    JWTOptions checks = new JWTOptions().setIssuer(config.issuer()).setLeeway(config.leewaySeconds());
    if (!config.audiences().isEmpty()) {
      checks.setAudience(config.audiences());
    }
    JWTAuthOptions options = new JWTAuthOptions().setJWTOptions(checks);
    config.publicKeys().forEach(pem -> options.addPubSecKey(
        new PubSecKeyOptions().setAlgorithm(config.algorithm()).setBuffer(pem)));
    return new BearerTokens(JWTAuth.create(vertx, options));
  }

  public boolean enabled() {
    return jwt != null;
  }

  /**
   * The caller of a request with this Authorization header (null: none): {@link Caller#ANYONE} while
   * authentication is off, else the token's subject, or a failed future with the 401 to answer.
   */
  public Future<Caller> caller(String authorization) {
    if (jwt == null) {
      return Future.succeededFuture(Caller.ANYONE);
    }
    if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      return Future.failedFuture(new ApiError(401, "missing_token",
          "this write needs a bearer token: Authorization: Bearer <JWT>").withHeader("WWW-Authenticate", CHALLENGE));
    }
    String token = authorization.substring(SCHEME.length()).trim();
    Future<User> verified;
    try {
      verified = jwt.authenticate(new TokenCredentials(token));
    } catch (RuntimeException e) {
      verified = Future.failedFuture(e);   // a claim of the wrong type throws instead of failing the future
    }
    return verified.transform(ar -> ar.succeeded() ? subjectOf(ar.result().attributes())
        : Future.failedFuture(invalid(reason(ar.cause()))));
  }

  private static Future<Caller> subjectOf(JsonObject claims) {
    if (!(claims.getValue("exp") instanceof Number)) {
      return Future.failedFuture(invalid("it has no exp (a token must expire)"));
    }
    if (!(claims.getValue("sub") instanceof String sub) || sub.isBlank()) {
      return Future.failedFuture(invalid("it has no sub (the participant it writes as)"));
    }
    return Future.succeededFuture(new Caller(sub));
  }

  /** What the client may learn of why: the kind of failure, never the key or the library's internals. */
  private static String reason(Throwable cause) {
    String message = String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT);
    if (cause instanceof SignatureException || message.contains("signature")) {
      return "its signature does not verify";
    }
    if (cause instanceof NoSuchKeyIdException) {
      return "its signature does not verify: no key for its algorithm or key id";
    }
    if (message.contains("expired")) {
      return "it is expired or not valid yet";
    }
    if (message.contains("issuer")) {
      return "it is not from the expected issuer";
    }
    if (message.contains("audience")) {
      return "it is not meant for this audience";
    }
    return "it is malformed";
  }

  private static ApiError invalid(String reason) {
    return new ApiError(401, "invalid_token", "the bearer token is not valid: " + reason)
        .withHeader("WWW-Authenticate", CHALLENGE + ", error=\"invalid_token\", error_description=\"" + reason + "\"");
  }
}
