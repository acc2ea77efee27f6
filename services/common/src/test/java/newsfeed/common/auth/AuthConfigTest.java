package newsfeed.common.auth;

import newsfeed.common.config.Env;
import newsfeed.common.testing.TestTokens;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** AUTH_* parsed once at start: off by default, and every half or wrong configuration refused naming its variable. */
class AuthConfigTest {
  private static TestTokens rsa;
  private static TestTokens ec;

  @BeforeAll
  static void keys() {
    rsa = TestTokens.rsa();
    ec = TestTokens.ec();
  }

  private static AuthConfig parse(Map<String, String> env) {
    return AuthConfig.fromEnv(new Env(env));
  }

  private static Map<String, String> with(Map<String, String> base, String... pairs) {
    Map<String, String> env = new HashMap<>(base);
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i + 1] == null) {
        env.remove(pairs[i]);
      } else {
        env.put(pairs[i], pairs[i + 1]);
      }
    }
    return env;
  }

  private static void refused(Map<String, String> env, String... inMessage) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(env), env.toString());
    for (String part : inMessage) {
      assertTrue(e.getMessage().contains(part), e.getMessage());
    }
  }

  @Test
  void offByDefault() {
    assertSame(AuthConfig.OFF, parse(Map.of()));
    assertSame(AuthConfig.OFF, parse(Map.of("AUTH_ENABLED", "false")));
    assertFalse(AuthConfig.OFF.enabled());
  }

  @Test
  void everyVariableIsRead() {
    AuthConfig c = parse(with(rsa.env(), "AUTH_JWT_AUDIENCE", "newsfeed, admin,", "AUTH_JWT_LEEWAY_SECONDS", "5"));
    assertTrue(c.enabled());
    assertEquals("RS256", c.algorithm());
    assertEquals(TestTokens.ISSUER, c.issuer());
    assertEquals(List.of("newsfeed", "admin"), c.audiences());
    assertEquals(5, c.leewaySeconds());
    assertEquals(1, c.publicKeys().size());
    AuthConfig defaults = parse(with(rsa.env(), "AUTH_JWT_ALGORITHM", null));
    assertEquals("RS256", defaults.algorithm());
    assertEquals(List.of(), defaults.audiences());
    assertEquals(30, defaults.leewaySeconds());
  }

  @Test
  void halfAConfigurationStopsTheStart() {
    refused(with(rsa.env(), "AUTH_JWT_PUBLIC_KEY", null), "AUTH_JWT_PUBLIC_KEY");
    refused(with(rsa.env(), "AUTH_JWT_ISSUER", null), "AUTH_JWT_ISSUER");
    refused(with(rsa.env(), "AUTH_JWT_ISSUER", " "), "AUTH_JWT_ISSUER");
    // settings without the switch: a forgotten AUTH_ENABLED must not leave the writes open silently
    refused(with(rsa.env(), "AUTH_ENABLED", null), "AUTH_JWT_", "AUTH_ENABLED");
    refused(Map.of("AUTH_JWT_ISSUER", "x"), "AUTH_JWT_ISSUER", "AUTH_ENABLED");
    refused(Map.of("AUTH_ENABLED", "yes"), "AUTH_ENABLED");
    // saying false is a decision: the settings may stay (e.g. the chart's Secret), nothing is checked
    assertSame(AuthConfig.OFF, parse(with(rsa.env(), "AUTH_ENABLED", "false")));
  }

  @Test
  void wrongKeysAndAlgorithmsStopTheStart() throws Exception {
    refused(with(rsa.env(), "AUTH_JWT_ALGORITHM", "HS256"), "AUTH_JWT_ALGORITHM");
    refused(with(rsa.env(), "AUTH_JWT_ALGORITHM", "none"), "AUTH_JWT_ALGORITHM");
    refused(with(rsa.env(), "AUTH_JWT_PUBLIC_KEY", "not a key"), "AUTH_JWT_PUBLIC_KEY");
    refused(with(rsa.env(), "AUTH_JWT_PUBLIC_KEY", rsa.privateKeyPem()), "AUTH_JWT_PUBLIC_KEY", "private key");
    refused(with(rsa.env(), "AUTH_JWT_PUBLIC_KEY", rsa.publicKeyPem().replace("PUBLIC KEY", "CERTIFICATE")),
        "AUTH_JWT_PUBLIC_KEY");
    refused(with(rsa.env(), "AUTH_JWT_PUBLIC_KEY", rsa.publicKeyPem().replaceFirst("\n[A-Za-z0-9+/]{16}", "\n")),
        "AUTH_JWT_PUBLIC_KEY");
    // a key of another kind, or too weak
    refused(with(rsa.env(), "AUTH_JWT_PUBLIC_KEY", ec.publicKeyPem()), "AUTH_JWT_PUBLIC_KEY", "RSA");
    refused(with(ec.env(), "AUTH_JWT_ALGORITHM", "ES384"), "AUTH_JWT_PUBLIC_KEY", "ES384");
    KeyPairGenerator small = KeyPairGenerator.getInstance("RSA");
    small.initialize(1024);
    String weak = "-----BEGIN PUBLIC KEY-----\n"
        + Base64.getMimeEncoder().encodeToString(small.generateKeyPair().getPublic().getEncoded())
        + "\n-----END PUBLIC KEY-----\n";
    refused(with(rsa.env(), "AUTH_JWT_PUBLIC_KEY", weak), "AUTH_JWT_PUBLIC_KEY", "1024");
    refused(with(rsa.env(), "AUTH_JWT_LEEWAY_SECONDS", "3600"), "AUTH_JWT_LEEWAY_SECONDS");
  }

  @Test
  void keysSurviveLostLineBreaksAndSeveralAreKeptForARotation() {
    String oneLine = rsa.publicKeyPem().replace("\n", " ");
    assertEquals(parse(rsa.env()).publicKeys(), parse(with(rsa.env(), "AUTH_JWT_PUBLIC_KEY", oneLine)).publicKeys());
    TestTokens next = TestTokens.rsa();
    AuthConfig both = parse(with(rsa.env(), "AUTH_JWT_PUBLIC_KEY", rsa.publicKeyPem() + next.publicKeyPem()));
    assertEquals(2, both.publicKeys().size());
    assertEquals(1, parse(ec.env()).publicKeys().size());
  }

  @Test
  void theStartLogShowsTheRulesNotTheKeys() {
    String text = parse(with(rsa.env(), "AUTH_JWT_AUDIENCE", "newsfeed")).toString();
    assertTrue(text.contains(TestTokens.ISSUER) && text.contains("RS256") && text.contains("newsfeed"), text);
    assertFalse(text.contains("BEGIN"), text);
    assertTrue(AuthConfig.OFF.toString().contains("open"));
  }
}
