package newsfeed.socialgraph;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Base64;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Every kind of bad request gets a 4xx JSON error and stores nothing: each body carries a unique marker, and
 * PostgreSQL is asked afterwards whether anything with it (or any friendship of the test's participants) exists.
 */
class BadInputIT {
  private static final int MAX_BODY = 4096;
  @RegisterExtension
  static final ServiceOnStack stack = new ServiceOnStack(Map.of("HTTP_MAX_BODY_BYTES", Integer.toString(MAX_BODY)));

  @Test
  void badParticipantBodiesAre400AndStoreNothing() {
    String m = "marker-" + UUID.randomUUID();
    String[] bodies = {
        "", "   ", "null", "not json " + m, "{\"name\": \"" + m, "[\"" + m + "\"]", "\"" + m + "\"", "42",
        "{\"nme\": \"" + m + "\"}", "{\"name\": 123, \"x\": \"" + m + "\"}", "{\"name\": [\"" + m + "\"]}",
        "{\"name\": {\"first\": \"" + m + "\"}}", "{\"name\": true, \"x\": \"" + m + "\"}",
        "{\"name\": null, \"x\": \"" + m + "\"}", "{\"name\": \"  \", \"x\": \"" + m + "\"}",
        "{\"name\": \"" + m + "x".repeat(200) + "\"}", "{\"name\": \"" + m + "\\u0000\"}",
        "{\"name\": \"" + m + "\\ud800\"}", "{\"name\": \"" + m + "\"} trailing", "{'name': '" + m + "'}"};
    for (String body : bodies) {
      expect400(stack.service().post("/participant", body), "POST /participant " + body);
    }
    assertEquals(0, stack.stores().count("SELECT count(*) FROM participant WHERE strpos(name, $1) > 0", m));
  }

  @Test
  void badFriendRequestsAre400AndStoreNothing() {
    long a = stack.service().createParticipant("bad-input a " + UUID.randomUUID());
    long b = stack.service().createParticipant("bad-input b " + UUID.randomUUID());
    String path = "/participant/" + a + "/friends";
    String[] bodies = {
        "", "garbage", "[]", "{}", "{\"from\": \"/participant/" + a + "\"}", "{\"to\": null}",
        "{\"to\": \"" + b + "x\"}", "{\"to\": \"/participant/x" + b + "\"}", "{\"to\": -" + b + "}", "{\"to\": 0}",
        "{\"to\": " + b + ".5}", "{\"to\": " + b + ".0}", "{\"to\": \"/participant/99999999999999999999\"}",
        "{\"to\": 99999999999999999999}", "{\"to\": true}", "{\"to\": [\"/participant/" + b + "\"]}",
        "{\"to\": {\"id\": " + b + "}}", "{\"to\": \"/participant/" + b + "' OR '1'='1\"}",
        "{\"from\": \"/participant/" + b + "\", \"to\": \"/participant/" + b + "\"}",
        "{\"from\": 1.5, \"to\": \"/participant/" + b + "\"}",
        "{\"to\": \"/participant/" + a + "\"}", "{\"from\": \"/participant/" + a + "\", \"to\": " + a + "}"};
    for (String body : bodies) {
      expect400(stack.service().post(path, body), "POST " + path + " " + body);
    }
    String valid = new JsonObject().put("to", "/participant/" + b).encode();
    for (String badId : new String[] {"abc", "0", "-" + a, "99999999999999999999", a + ".0", "1e3", "%20" + a,
        a + "%00"}) {
      expect400(stack.service().post("/participant/" + badId + "/friends", valid), "POST friends of " + badId);
    }
    assertEquals(0, stack.stores().count(
        "SELECT count(*) FROM friendship WHERE from_id IN ($1, $2) OR to_id IN ($1, $2)", a, b));
  }

  @Test
  void badIdsLimitsAndCursorsAre400() {
    long a = stack.service().createParticipant("bad-input reader " + UUID.randomUUID());
    String badCursor = Base64.getUrlEncoder().withoutPadding().encodeToString("f:-1".getBytes());
    for (String uri : new String[] {"/participant/abc", "/participant/0", "/participant/-5",
        "/participant/99999999999999999999", "/participant/1e3", "/participant/%20", "/participant/1%27%20OR%201=1",
        "/participant/abc/friends", "/participant/0/friends", "/participant/-1/friends",
        "/participant/" + a + "/friends?limit=0", "/participant/" + a + "/friends?limit=10001",
        "/participant/" + a + "/friends?limit=ten", "/participant/" + a + "/friends?limit=-1",
        "/participant/" + a + "/friends?cursor=zzz", "/participant/" + a + "/friends?cursor=" + badCursor}) {
      expect400(stack.service().get(uri), "GET " + uri);
    }
  }

  @Test
  void tooLargeBodiesAre413AndStoreNothing() {
    String m = "marker-" + UUID.randomUUID();
    long a = stack.service().createParticipant("big-body " + UUID.randomUUID());
    String big = new JsonObject().put("name", m).put("pad", "x".repeat(MAX_BODY)).encode();
    for (String uri : new String[] {"/participant", "/participant/" + a + "/friends"}) {
      HttpResponse<Buffer> resp = stack.service().post(uri, big);
      assertEquals(413, resp.statusCode(), resp.bodyAsString());
      assertEquals("application/json", resp.getHeader("Content-Type"));
      assertEquals("body_too_large", resp.bodyAsJsonObject().getString("error"));
    }
    assertEquals(0, stack.stores().count("SELECT count(*) FROM participant WHERE strpos(name, $1) > 0", m));
    assertEquals(0, stack.stores().count("SELECT count(*) FROM friendship WHERE from_id = $1", a));
    // just under the limit is fine (and the unknown field is ignored)
    String fits = new JsonObject().put("name", m).put("pad", "x".repeat(MAX_BODY - 200)).encode();
    assertEquals(200, stack.service().post("/participant", fits).statusCode());
  }

  @Test
  void bodiesThatAreNotUtf8Are400AndStoreNothing() {
    String m = "marker-" + UUID.randomUUID();
    long a = stack.service().createParticipant("utf8 " + UUID.randomUUID());
    long b = stack.service().createParticipant("utf8 " + UUID.randomUUID());
    Buffer name = Buffer.buffer("{\"name\":\"" + m)
        .appendBytes(new byte[] {(byte) 0xff, (byte) 0xfe}).appendString("\"}");
    expect400(stack.service().post("/participant", name), "name with invalid UTF-8");
    assertEquals(0, stack.stores().count("SELECT count(*) FROM participant WHERE strpos(name, $1) > 0", m));
    Buffer to = Buffer.buffer("{\"to\":\"/participant/" + b + "\",\"x\":\"")
        .appendByte((byte) 0xc3).appendString("\"}");
    expect400(stack.service().post("/participant/" + a + "/friends", to), "friend body with invalid UTF-8");
    assertEquals(0, stack.stores().count("SELECT count(*) FROM friendship WHERE from_id = $1", a));
  }

  @Test
  void requestsTheHttpDecoderRejectsAnswerInJsonToo() {
    HttpResponse<Buffer> longUrl = stack.service().get("/participant/1/" + "x".repeat(10_000));
    assertEquals(414, longUrl.statusCode());
    assertEquals("application/json", longUrl.getHeader("Content-Type"));
    assertEquals("uri_too_long", longUrl.bodyAsJsonObject().getString("error"));
    assertEquals(414, longUrl.bodyAsJsonObject().getInteger("status"));
  }

  @Test
  void unknownRoutesAndMethodsAnswerInJson() {
    HttpResponse<Buffer> notFound = stack.service().get("/participants");
    assertEquals(404, notFound.statusCode());
    assertEquals("not_found", notFound.bodyAsJsonObject().getString("error"));
    HttpResponse<Buffer> notAllowed = stack.service().post("/participant/1", "{}");
    assertEquals(405, notAllowed.statusCode());
    assertEquals("method_not_allowed", notAllowed.bodyAsJsonObject().getString("error"));
    assertEquals("GET", notAllowed.getHeader("Allow"));
  }

  @Test
  void otherMediaTypesAre415AndStoreNothing() {
    String m = "marker-" + UUID.randomUUID();
    long a = stack.service().createParticipant("media a " + UUID.randomUUID());
    long b = stack.service().createParticipant("media b " + UUID.randomUUID());
    String participant = new JsonObject().put("name", m).encode();
    String friend = new JsonObject().put("to", "/participant/" + b).encode();
    for (String type : new String[] {"text/csv", "text/plain", "application/xml", "multipart/form-data; boundary=x",
        "application/octet-stream", "json", "garbage"}) {
      for (String[] req : new String[][] {{"/participant", participant}, {"/participant/" + a + "/friends", friend}}) {
        HttpResponse<Buffer> resp = stack.service().post(req[0], type, req[1]);
        String what = "POST " + req[0] + " as " + type;
        assertEquals(415, resp.statusCode(), what + " -> " + resp.bodyAsString());
        assertEquals("application/json", resp.getHeader("Content-Type"), what);
        JsonObject error = resp.bodyAsJsonObject();
        assertEquals("unsupported_media_type", error.getString("error"), what);
        assertEquals(415, error.getInteger("status"), what);
        assertFalse(error.getString("message", "").isEmpty(), what);
      }
    }
    assertEquals(0, stack.stores().count("SELECT count(*) FROM participant WHERE strpos(name, $1) > 0", m));
    assertEquals(0, stack.stores().count(
        "SELECT count(*) FROM friendship WHERE from_id IN ($1, $2) OR to_id IN ($1, $2)", a, b));
  }

  @Test
  void badFormsAre400AndStoreNothing() {
    String m = "marker-" + UUID.randomUUID();
    long a = stack.service().createParticipant("form a " + UUID.randomUUID());
    long b = stack.service().createParticipant("form b " + UUID.randomUUID());
    String form = "application/x-www-form-urlencoded";
    for (String body : new String[] {"", "nom=" + m, "name=" + m + "&name=" + m, "name=" + m + "%", "name=" + m + "%zz",
        "name=" + m + "%ff", "name=%20%20&x=" + m, "name=" + m + "%00", "name=" + "x".repeat(201) + m}) {
      expect400(stack.service().post("/participant", form, body), "form POST /participant " + body);
    }
    String path = "/participant/" + a + "/friends";
    for (String body : new String[] {"", "from=%2Fparticipant%2F" + a, "to=abc", "to=%2Fparticipant%2F" + a,
        "to=%2Fparticipant%2F" + b + "&to=%2Fparticipant%2F" + b, "from=%2Fparticipant%2F" + b + "&to=" + b,
        "to=%2Fparticipant%2F" + b + "%"}) {
      expect400(stack.service().post(path, form, body), "form POST " + path + " " + body);
    }
    assertEquals(0, stack.stores().count("SELECT count(*) FROM participant WHERE strpos(name, $1) > 0", m));
    assertEquals(0, stack.stores().count(
        "SELECT count(*) FROM friendship WHERE from_id IN ($1, $2) OR to_id IN ($1, $2)", a, b));
  }

  private static void expect400(HttpResponse<Buffer> resp, String what) {
    assertEquals(400, resp.statusCode(), what + " -> " + resp.bodyAsString());
    assertEquals("application/json", resp.getHeader("Content-Type"), what);
    JsonObject error = resp.bodyAsJsonObject();
    assertEquals(400, error.getInteger("status"), what);
    assertFalse(error.getString("error", "").isEmpty(), what);
    assertFalse(error.getString("message", "").isEmpty(), what);
  }
}
