package newsfeed.common.testing;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.Map;

/**
 * A token issuer made in the test: a key pair generated here (no network, no key file), the AUTH_* environment
 * that makes a service trust it, and signed tokens, valid or wrong in one chosen way.
 */
public final class TestTokens {
  public static final String ISSUER = "https://issuer.newsfeed.test";
  private final String algorithm;
  private final KeyPair keys;
  private final JWTAuth signer;

  private TestTokens(String algorithm, KeyPair keys) {
    this.algorithm = algorithm;
    this.keys = keys;
    // the provider uses Vert.x only to read key stores from files: these keys are in memory
    this.signer = JWTAuth.create(null, new JWTAuthOptions().addPubSecKey(new PubSecKeyOptions()
        .setAlgorithm(algorithm).setBuffer(pem("PRIVATE KEY", keys.getPrivate().getEncoded()))));
  }

  /** An RS256 issuer with a new 2048-bit key. */
  public static TestTokens rsa() {
    return new TestTokens("RS256", generate("RSA", null));
  }

  /** An ES256 issuer with a new P-256 key. */
  public static TestTokens ec() {
    return new TestTokens("ES256", generate("EC", new ECGenParameterSpec("secp256r1")));
  }

  /** An EdDSA issuer with a new Ed25519 key. */
  public static TestTokens ed25519() {
    return new TestTokens("EdDSA", generate("Ed25519", null));
  }

  private static KeyPair generate(String kind, ECGenParameterSpec curve) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance(kind);
      if (curve != null) {
        generator.initialize(curve);
      } else if ("RSA".equals(kind)) {
        generator.initialize(2048);
      }
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  public String algorithm() {
    return algorithm;
  }

  public String publicKeyPem() {
    return pem("PUBLIC KEY", keys.getPublic().getEncoded());
  }

  public String privateKeyPem() {
    return pem("PRIVATE KEY", keys.getPrivate().getEncoded());
  }

  /** The environment of a service that requires this issuer's tokens on its writes. */
  public Map<String, String> env() {
    return Map.of("AUTH_ENABLED", "true", "AUTH_JWT_ALGORITHM", algorithm, "AUTH_JWT_ISSUER", ISSUER,
        "AUTH_JWT_PUBLIC_KEY", publicKeyPem());
  }

  /** Claims of a good token for {@code subject}: this issuer, expiring in 5 minutes. */
  public static JsonObject claims(String subject) {
    return new JsonObject().put("iss", ISSUER).put("sub", subject)
        .put("exp", System.currentTimeMillis() / 1000 + 300);
  }

  /** A token of exactly these claims, signed with this issuer's key. */
  public String sign(JsonObject claims) {
    return signer.generateToken(claims, new JWTOptions().setAlgorithm(algorithm));
  }

  /** The Authorization header of a good token for {@code subject}. */
  public String bearer(String subject) {
    return "Bearer " + sign(claims(subject));
  }

  /** The Authorization header of a good token for {@code subject} with these audiences. */
  public String bearer(String subject, String... audiences) {
    return "Bearer " + sign(claims(subject).put("aud", new JsonArray(java.util.List.of((Object[]) audiences))));
  }

  private static String pem(String kind, byte[] der) {
    return "-----BEGIN " + kind + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
        + "\n-----END " + kind + "-----\n";
  }
}
