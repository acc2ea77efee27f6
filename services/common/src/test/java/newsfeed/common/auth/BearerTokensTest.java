package newsfeed.common.auth;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import newsfeed.common.config.Env;
import newsfeed.common.http.ApiError;
import newsfeed.common.testing.TestTokens;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verifier on tokens signed here with keys generated here: what passes, and each way a token is refused. */
class BearerTokensTest {
  private static Vertx vertx;
  private static TestTokens issuer;
  private static BearerTokens tokens;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    issuer = TestTokens.rsa();
    tokens = BearerTokens.create(vertx, AuthConfig.fromEnv(new Env(issuer.env())));
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
  }

  private static long now() {
    return System.currentTimeMillis() / 1000;
  }

  private static ApiError refusal(BearerTokens verifier, String authorization) {
    Future<Caller> f = verifier.caller(authorization);
    assertTrue(f.failed(), "accepted: " + authorization);
    return (ApiError) f.cause();
  }

  private static void invalid(String authorization, String reason) {
    ApiError e = refusal(tokens, authorization);
    assertEquals(401, e.status());
    assertEquals("invalid_token", e.code());
    assertTrue(e.getMessage().contains(reason), e.getMessage());
    assertTrue(e.headers().get("WWW-Authenticate").startsWith("Bearer realm=\"newsfeed\", error=\"invalid_token\""),
        e.headers().toString());
  }

  @Test
  void aGoodTokenNamesItsSubject() {
    assertEquals(new Caller("42"), tokens.caller(issuer.bearer("42")).result());
    assertEquals(new Caller("42"), tokens.caller("bearer  " + issuer.sign(TestTokens.claims("42"))).result(),
        "the scheme is case-insensitive");
    // within the leeway (30 s) a token just expired still passes: clocks drift
    assertTrue(tokens.caller("Bearer " + issuer.sign(TestTokens.claims("42").put("exp", now() - 10))).succeeded());
  }

  @Test
  void noTokenIsA401WithTheBearerChallenge() {
    for (String none : new String[] {null, "", "Basic dXNlcjpwYXNz", "Token abc"}) {
      ApiError e = refusal(tokens, none);
      assertEquals(401, e.status());
      assertEquals("missing_token", e.code());
      assertEquals(Map.of("WWW-Authenticate", "Bearer realm=\"newsfeed\""), e.headers());
    }
  }

  @Test
  void expiredOrNotYetValidTokensAreRefused() {
    invalid("Bearer " + issuer.sign(TestTokens.claims("42").put("exp", now() - 120)), "expired");
    invalid("Bearer " + issuer.sign(TestTokens.claims("42").put("nbf", now() + 600)), "not valid yet");
    invalid("Bearer " + issuer.sign(TestTokens.claims("42").put("exp", "tomorrow")), "malformed");
  }

  @Test
  void aTokenMustExpireAndNameItsSubject() {
    JsonObject noExp = TestTokens.claims("42");
    noExp.remove("exp");
    invalid("Bearer " + issuer.sign(noExp), "no exp");
    JsonObject noSub = TestTokens.claims("42");
    noSub.remove("sub");
    invalid("Bearer " + issuer.sign(noSub), "no sub");
    invalid("Bearer " + issuer.sign(TestTokens.claims("42").put("sub", 42)), "no sub");
  }

  @Test
  void anotherIssuerOrKeyIsRefused() {
    invalid("Bearer " + issuer.sign(TestTokens.claims("42").put("iss", "https://elsewhere.test")), "issuer");
    TestTokens stranger = TestTokens.rsa();
    invalid(stranger.bearer("42"), "signature");
    // an EC token where RS256 is configured: no key of that algorithm
    invalid(TestTokens.ec().bearer("42"), "signature");
  }

  @Test
  void forgedAlgorithmsAreRefused() {
    // the classic confusion: an HMAC "signed" with the public key as the secret
    JWTAuth hmac = JWTAuth.create(vertx, new JWTAuthOptions().addPubSecKey(new PubSecKeyOptions()
        .setAlgorithm("HS256").setBuffer(issuer.publicKeyPem())));
    invalid("Bearer " + hmac.generateToken(TestTokens.claims("42"), new JWTOptions().setAlgorithm("HS256")),
        "signature");
    // alg none: no signature at all
    String header = b64("{\"alg\":\"none\",\"typ\":\"JWT\"}");
    invalid("Bearer " + header + "." + b64(TestTokens.claims("42").encode()) + ".", "malformed");
    invalid("Bearer " + header + "." + b64(TestTokens.claims("42").encode()), "malformed");
    // a good token's payload changed after signing
    String[] parts = issuer.sign(TestTokens.claims("42")).split("\\.");
    invalid("Bearer " + parts[0] + "." + b64(TestTokens.claims("7").encode()) + "." + parts[2], "signature");
  }

  @Test
  void garbageIsRefusedAsMalformed() {
    for (String garbage : new String[] {"Bearer ", "Bearer x", "Bearer a.b.c", "Bearer %%%.%%%.%%%",
        "Bearer " + b64("{}") + "." + b64("[]") + ".c2ln"}) {
      assertEquals(401, refusal(tokens, garbage).status(), garbage);
    }
  }

  @Test
  void audiencesAreCheckedWhenConfigured() {
    Map<String, String> env = new HashMap<>(issuer.env());
    env.put("AUTH_JWT_AUDIENCE", "newsfeed,newsfeed-admin");
    BearerTokens withAudience = BearerTokens.create(vertx, AuthConfig.fromEnv(new Env(env)));
    assertTrue(withAudience.caller(issuer.bearer("42", "newsfeed")).succeeded());
    assertTrue(withAudience.caller(issuer.bearer("42", "other", "newsfeed-admin")).succeeded());
    assertEquals("invalid_token", refusal(withAudience, issuer.bearer("42", "other")).code());
    assertTrue(refusal(withAudience, issuer.bearer("42", "other")).getMessage().contains("audience"));
    assertEquals("invalid_token", refusal(withAudience, issuer.bearer("42")).code(), "no aud at all");
    assertTrue(tokens.caller(issuer.bearer("42", "anything")).succeeded(), "no audience configured: any passes");
  }

  @Test
  void everyKeyOfARotationVerifies() {
    TestTokens next = TestTokens.rsa();
    Map<String, String> env = new HashMap<>(issuer.env());
    env.put("AUTH_JWT_PUBLIC_KEY", issuer.publicKeyPem() + "\n" + next.publicKeyPem());
    BearerTokens both = BearerTokens.create(vertx, AuthConfig.fromEnv(new Env(env)));
    assertTrue(both.caller(issuer.bearer("1")).succeeded());
    assertTrue(both.caller(next.bearer("1")).succeeded());
    assertEquals(401, refusal(both, TestTokens.rsa().bearer("1")).status());
  }

  @Test
  void ecAndEdDsaKeysWork() {
    for (TestTokens other : new TestTokens[] {TestTokens.ec(), TestTokens.ed25519()}) {
      BearerTokens verifier = BearerTokens.create(vertx, AuthConfig.fromEnv(new Env(other.env())));
      assertEquals(new Caller("9"), verifier.caller(other.bearer("9")).result(), other.algorithm());
      assertEquals(401, refusal(verifier, issuer.bearer("9")).status(), other.algorithm());
    }
  }

  @Test
  void offEveryoneWritesAndNothingIsRead() {
    BearerTokens off = BearerTokens.create(vertx, AuthConfig.OFF);
    assertSame(Caller.ANYONE, off.caller(null).result());
    assertSame(Caller.ANYONE, off.caller("Bearer garbage").result());
  }

  @Test
  void aSubjectWritesAsItsOwnParticipantOnly() {
    new Caller("42").requireParticipant(42);
    new Caller("/participant/42").requireParticipant(42);
    Caller.ANYONE.requireParticipant(7);
    for (Caller other : new Caller[] {new Caller("42"), new Caller("registration-service"), new Caller("042x")}) {
      ApiError e = assertThrows(ApiError.class, () -> other.requireParticipant(7));
      assertEquals(403, e.status());
      assertEquals("forbidden", e.code());
    }
  }

  private static String b64(String json) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }
}
