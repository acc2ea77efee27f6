package newsfeed.common.auth;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PEM public keys of AUTH_JWT_PUBLIC_KEY, checked at start: each `-----BEGIN PUBLIC KEY-----` block must be a
 * key of the algorithm's kind (RSA of 2048 bits or more, EC on the algorithm's curve, Ed25519/Ed448), so a wrong or
 * truncated key stops the service instead of failing every write. A Secret or an environment variable may have lost
 * the line breaks: the blocks are found by their markers and written back in the form vertx-auth-jwt reads.
 */
final class PublicKeys {
  private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----",
      Pattern.DOTALL);
  private static final int MIN_RSA_BITS = 2048;

  private PublicKeys() {
  }

  /** The keys as PEM blocks vertx-auth-jwt parses; an IllegalArgumentException naming {@code name} otherwise. */
  static List<String> parse(String name, String value, String algorithm) {
    List<String> keys = new ArrayList<>();
    Matcher m = BLOCK.matcher(value);
    while (m.find()) {
      String kind = m.group(1);
      if (kind.contains("PRIVATE")) {
        throw new IllegalArgumentException(name + " holds a private key: give the public key only (the services "
            + "verify tokens, they never sign them)");
      }
      if (!"PUBLIC KEY".equals(kind)) {
        throw new IllegalArgumentException(name + " must hold -----BEGIN PUBLIC KEY----- blocks, got " + kind);
      }
      String base64 = m.group(2).replaceAll("\\s", "");
      check(name, algorithm, base64);
      keys.add(pem(base64));
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException(name + " must hold a PEM public key (-----BEGIN PUBLIC KEY----- ...)");
    }
    return keys;
  }

  private static void check(String name, String algorithm, String base64) {
    PublicKey key;
    try {
      key = KeyFactory.getInstance(family(algorithm))
          .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(base64)));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException(name + " is not a " + family(algorithm) + " public key, as "
          + algorithm + " needs: " + e.getMessage());
    }
    if (key instanceof RSAPublicKey rsa && rsa.getModulus().bitLength() < MIN_RSA_BITS) {
      throw new IllegalArgumentException(name + " is an RSA key of " + rsa.getModulus().bitLength()
          + " bits; " + MIN_RSA_BITS + " or more are needed");
    }
    if (key instanceof ECPublicKey ec && curveBits(ec) != curveBits(algorithm)) {
      throw new IllegalArgumentException(name + " is an EC key on a " + curveBits(ec) + "-bit curve; "
          + algorithm + " needs " + curveBits(algorithm) + " bits");
    }
  }

  private static String family(String algorithm) {
    if (algorithm.startsWith("RS") || algorithm.startsWith("PS")) {
      return "RSA";
    }
    return algorithm.startsWith("ES") ? "EC" : "EdDSA";
  }

  private static int curveBits(ECPublicKey key) {
    return key.getParams().getCurve().getField().getFieldSize();
  }

  private static int curveBits(String algorithm) {
    return switch (algorithm) {
      case "ES256" -> 256;
      case "ES384" -> 384;
      default -> 521;
    };
  }

  private static String pem(String base64) {
    StringBuilder pem = new StringBuilder("-----BEGIN PUBLIC KEY-----\n");
    for (int i = 0; i < base64.length(); i += 64) {
      pem.append(base64, i, Math.min(base64.length(), i + 64)).append('\n');
    }
    return pem.append("-----END PUBLIC KEY-----\n").toString();
  }
}
