package newsfeed.common.http;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class JsonBodyTest {

  @Test
  void participantReferencesAreLinksOrPositiveIntegers() {
    assertEquals(42L, JsonBody.optionalParticipant(new JsonObject().put("to", "/participant/42"), "to"));
    assertEquals(42L, JsonBody.optionalParticipant(new JsonObject().put("to", 42), "to"));
    assertEquals(42L, JsonBody.optionalParticipant(new JsonObject().put("to", 42L), "to"));
    assertNull(JsonBody.optionalParticipant(new JsonObject(), "to"));
    // never truncated: a fraction, a huge or a non-positive number is bad input
    for (Object bad : new Object[] {-1, 0, 1.5, 2.0, new java.math.BigInteger("99999999999999999999"),
        "/participant/-1", "/participant/abc", "/participant/99999999999999999999", "abc", "", true,
        new JsonObject()}) {
      JsonObject body = new JsonObject().put("to", bad);
      assertEquals(400, assertThrows(ApiError.class, () -> JsonBody.optionalParticipant(body, "to"),
          String.valueOf(bad)).status());
    }
  }
}
