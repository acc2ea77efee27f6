package newsfeed.outbound;

import newsfeed.common.http.ApiError;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PostRequestTest {

  @Test
  void aClassicBodyIsAccepted() {
    PostRequest r = PostRequest.parse(42, new JsonObject().put("from", "/participant/42").put("subject", "hi")
        .put("story", "a story").put("occurred", "1999-01-01"));
    assertEquals(new PostRequest(42, "1999-01-01", "hi", "a story"), r);
  }

  @Test
  void occurredIsKeptAsGivenOrNullWhenAbsent() {
    for (String given : new String[] {"2024-02-29", "1999-01-01T00:00:00Z", "2026-11-22t15:30:00.123456789-05:30"}) {
      assertEquals(given, PostRequest.parse(1, new JsonObject().put("subject", "s").put("story", "t")
          .put("occurred", given)).occurred());
    }
    assertEquals(null, PostRequest.parse(1, new JsonObject().put("subject", "s").put("story", "t")).occurred());
    assertEquals(null, PostRequest.parse(1, new JsonObject().put("subject", "s").put("story", "t")
        .putNull("occurred")).occurred());
  }

  @Test
  void fromIsOptionalAndMayBeABareId() {
    assertEquals(42, PostRequest.parse(42, new JsonObject().put("subject", "s").put("story", "t")).participantId());
    assertEquals(42, PostRequest.parse(42, new JsonObject().put("from", 42).put("subject", "s").put("story", "t"))
        .participantId());
  }

  @Test
  void theLongestSubjectAndStoryAreAccepted() {
    PostRequest r = PostRequest.parse(1, new JsonObject().put("subject", "s".repeat(PostRequest.MAX_SUBJECT))
        .put("story", "é".repeat(PostRequest.MAX_STORY)));
    assertEquals(PostRequest.MAX_STORY, r.story().length());
  }

  @Test
  void badBodiesAre400NamingTheField() {
    Object[][] cases = {
        {new JsonObject().put("story", "t"), "subject"},
        {new JsonObject().put("subject", "s"), "story"},
        {new JsonObject().put("subject", "").put("story", "t"), "subject"},
        {new JsonObject().put("subject", "   ").put("story", "t"), "subject"},
        {new JsonObject().put("subject", "s").put("story", ""), "story"},
        {new JsonObject().put("subject", 7).put("story", "t"), "subject"},
        {new JsonObject().put("subject", "s").put("story", new JsonArray().add("t")), "story"},
        {new JsonObject().put("subject", "s").put("story", true), "story"},
        {new JsonObject().put("subject", "s".repeat(PostRequest.MAX_SUBJECT + 1)).put("story", "t"), "subject"},
        {new JsonObject().put("subject", "s").put("story", "t".repeat(PostRequest.MAX_STORY + 1)), "story"},
        {new JsonObject().put("from", "/participant/43").put("subject", "s").put("story", "t"), "from"},
        {new JsonObject().put("from", "/person/42").put("subject", "s").put("story", "t"), "from"},
        {new JsonObject().put("from", -42).put("subject", "s").put("story", "t"), "from"},
        {new JsonObject().put("from", new JsonObject()).put("subject", "s").put("story", "t"), "from"},
        {new JsonObject().put("from", 42.5).put("subject", "s").put("story", "t"), "from"},
        {new JsonObject().put("from", new java.math.BigInteger("18446744073709551658")).put("subject", "s")
            .put("story", "t"), "from"},
        {new JsonObject().put("occurred", "yesterday").put("subject", "s").put("story", "t"), "occurred"},
        {new JsonObject().put("occurred", "2023-02-29").put("subject", "s").put("story", "t"), "occurred"},
        {new JsonObject().put("occurred", "2026-13-01").put("subject", "s").put("story", "t"), "occurred"},
        {new JsonObject().put("occurred", "2026-11-22T15:30Z").put("subject", "s").put("story", "t"), "occurred"},
        {new JsonObject().put("occurred", "2026-11-22T25:00:00Z").put("subject", "s").put("story", "t"), "occurred"},
        {new JsonObject().put("occurred", "2026-11-22T15:30:00").put("subject", "s").put("story", "t"), "occurred"},
        {new JsonObject().put("occurred", "").put("subject", "s").put("story", "t"), "occurred"},
        {new JsonObject().put("occurred", 20261122).put("subject", "s").put("story", "t"), "occurred"},
        {new JsonObject().put("occurred", " 2026-11-22").put("subject", "s").put("story", "t"), "occurred"},
    };
    for (Object[] c : cases) {
      ApiError e = assertThrows(ApiError.class, () -> PostRequest.parse(42, (JsonObject) c[0]), c[0].toString());
      assertEquals(400, e.status(), c[0].toString());
      assertEquals(true, e.getMessage().startsWith((String) c[1]), c[0] + " -> " + e.getMessage());
    }
  }
}
