package newsfeed.socialgraph;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import newsfeed.common.testing.TestTokens;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * social-graph with AUTH_ENABLED on the real stores: its writes without a token, with a token it cannot verify
 * and with another participant's token are refused (401, 401, 403) and store nothing; its own token writes;
 * reads stay open.
 */
class AuthenticatedWritesIT {
  private static final TestTokens ISSUER = TestTokens.rsa();
  @RegisterExtension
  static final ServiceOnStack stack = new ServiceOnStack(ISSUER.env());

  private static void assertRefused(HttpResponse<Buffer> resp, int status, String code) {
    assertEquals(status, resp.statusCode(), resp.bodyAsString());
    assertEquals("application/json", resp.getHeader("Content-Type"));
    assertEquals(code, resp.bodyAsJsonObject().getString("error"));
    if (status == 401) {
      assertTrue(resp.getHeader("WWW-Authenticate").startsWith("Bearer"), resp.headers().toString());
    }
  }

  private static long create(String name, String authorization) {
    HttpResponse<Buffer> resp = stack.service().postAs(authorization, "/participant",
        new JsonObject().put("name", name));
    assertEquals(200, resp.statusCode(), resp.bodyAsString());
    return resp.bodyAsJsonObject().getLong("id");
  }

  @Test
  void aParticipantIsCreatedWithAVerifiedTokenOnly() {
    String name = "auth " + UUID.randomUUID();
    JsonObject body = new JsonObject().put("name", name);
    assertRefused(stack.service().postAs(null, "/participant", body), 401, "missing_token");
    assertRefused(stack.service().postAs(TestTokens.rsa().bearer("1"), "/participant", body), 401, "invalid_token");
    assertRefused(stack.service().postAs("Bearer " + ISSUER.sign(TestTokens.claims("1").put("exp", 1)),
        "/participant", body), 401, "invalid_token");
    assertEquals(0, stack.stores().count("SELECT count(*) FROM participant WHERE name = $1", name));
    long id = create(name, ISSUER.bearer("registration"));
    assertEquals(1, stack.stores().count("SELECT count(*) FROM participant WHERE id = $1 AND name = $2", id, name));
  }

  @Test
  void aParticipantBefriendsAsItselfOnly() {
    long a = create("auth a " + UUID.randomUUID(), ISSUER.bearer("registration"));
    long b = create("auth b " + UUID.randomUUID(), ISSUER.bearer("registration"));
    String path = "/participant/" + a + "/friends";
    JsonObject body = new JsonObject().put("to", "/participant/" + b);
    assertRefused(stack.service().postAs(null, path, body), 401, "missing_token");
    assertRefused(stack.service().postAs(TestTokens.ec().bearer(Long.toString(a)), path, body), 401,
        "invalid_token");
    assertRefused(stack.service().postAs(ISSUER.bearer(Long.toString(b)), path, body), 403, "forbidden");
    assertEquals(0, stack.stores().count("SELECT count(*) FROM friendship WHERE from_id = $1 OR to_id = $1", a));

    HttpResponse<Buffer> own = stack.service().postAs(ISSUER.bearer(Long.toString(a)), path, body);
    assertEquals(200, own.statusCode(), own.bodyAsString());
    assertEquals(2, stack.stores().count("SELECT count(*) FROM friendship WHERE from_id = $1 OR to_id = $1", a));
  }

  @Test
  void readsNeedNoToken() {
    long a = create("auth reader " + UUID.randomUUID(), ISSUER.bearer("registration"));
    assertEquals(200, stack.service().get("/participant/" + a).statusCode());
    assertEquals(200, stack.service().get("/participant/" + a + "/friends").statusCode());
  }
}
