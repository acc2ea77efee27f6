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

  @Test
  void aRequiredTextHoldsACharacterOtherThanWhiteSpaceAsTheContractCountsIt() {
    for (String blank : new String[] {"", " ", "\t\n", "\u00a0", "\u2003\u3000", "\ufeff"}) {
      JsonObject body = new JsonObject().put("s", blank);
      assertEquals("missing_field", assertThrows(ApiError.class, () -> JsonBody.requiredString(body, "s", 10),
          blank).code());
    }
    // Java's isBlank takes these for white space, the contract's pattern ('\\S', ECMAScript) does not
    assertEquals("\u001f", JsonBody.requiredString(new JsonObject().put("s", "\u001f"), "s", 10));
    assertEquals("\u001c", JsonBody.requiredString(new JsonObject().put("s", "\u001c"), "s", 10));
  }

  @Test
  void aMemberNamedTwiceIsRefusedNotChosen() {
    assertEquals(new JsonObject().put("a", new JsonObject().put("b", 1)).put("b", 2),
        JsonBody.parseObject("{\"a\": {\"b\": 1}, \"b\": 2}"), "the same name in another object is another member");
    for (String twice : new String[] {"{\"subject\":\"a\",\"subject\":\"b\"}",
        "{\"x\":{\"y\":1,\"y\":1}}", "{\"s\":1,\"\\u0073\":2}"}) {
      ApiError e = assertThrows(ApiError.class, () -> JsonBody.parseObject(twice), twice);
      assertEquals(400, e.status());
      assertEquals("invalid_json", e.code());
    }
    assertEquals("request body names member subject more than once", assertThrows(ApiError.class,
        () -> JsonBody.parseObject("{\"subject\":\"a\",\"subject\":\"b\"}")).getMessage());
  }

  @Test
  void halfASurrogatePairIsNoCharacter() {
    // a whole pair (an emoji) is a character; either half alone, anywhere in the text, is bad input
    assertEquals("a\ud83d\ude00b", JsonBody.optionalString(new JsonObject().put("s", "a\ud83d\ude00b"), "s", 10));
    for (String bad : new String[] {"\ud800", "a\udc00", "\ud83dx", "x\ude00\ud83d", "\ud83d"}) {
      JsonObject body = new JsonObject().put("s", bad);
      ApiError e = assertThrows(ApiError.class, () -> JsonBody.optionalString(body, "s", 10), bad);
      assertEquals(400, e.status());
      assertEquals("invalid_field", e.code());
    }
  }
}
