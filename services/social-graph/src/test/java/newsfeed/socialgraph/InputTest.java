package newsfeed.socialgraph;

import io.vertx.core.json.JsonObject;
import newsfeed.common.http.ApiError;
import newsfeed.socialgraph.FriendsHandler.FriendRequest;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class InputTest {

  @Test
  void aNameIsANonBlankStringOfAtMost200Characters() {
    assertEquals("Ann", Input.participantName(new JsonObject().put("name", "Ann")));
    assertEquals("x".repeat(200), Input.participantName(new JsonObject().put("name", "x".repeat(200))));
    String unicodeAndSql = "Zoë 🙂 ' OR 1=1; --";
    assertEquals(unicodeAndSql, Input.participantName(new JsonObject().put("name", unicodeAndSql)));
    // classic clients may send id and link too: ignored
    assertEquals("Ann", Input.participantName(new JsonObject().put("name", "Ann").put("id", 7).put("link", "/x")));
  }

  @Test
  void badNamesAre400() {
    for (JsonObject bad : new JsonObject[] {new JsonObject(), new JsonObject().put("name", ""),
        new JsonObject().put("name", "   "), new JsonObject().put("name", 123),
        new JsonObject().put("name", true), new JsonObject().put("name", new JsonObject()),
        new JsonObject().put("name", "x".repeat(201)), new JsonObject().put("name", "a\u0000b"),
        new JsonObject().put("name", "lone \uD800 surrogate"), new JsonObject().put("name", "end \uD83D"),
        new JsonObject().put("name", "\uDE42 low first")}) {
      ApiError e = assertThrows(ApiError.class, () -> Input.participantName(bad), bad.encode());
      assertEquals(400, e.status(), bad.encode());
    }
  }

  @Test
  void aFriendRequestNeedsToAndAMatchingFrom() {
    assertEquals(new FriendRequest(1, 2), FriendRequest.parse(1,
        new JsonObject().put("from", "/participant/1").put("to", "/participant/2")));
    assertEquals(new FriendRequest(1, 2), FriendRequest.parse(1, new JsonObject().put("to", 2)));
    for (JsonObject bad : new JsonObject[] {new JsonObject(), new JsonObject().put("from", "/participant/1"),
        new JsonObject().put("from", "/participant/3").put("to", "/participant/2"),
        new JsonObject().put("to", "/participant/1"), new JsonObject().put("to", "/participant/2").put("from", 0)}) {
      assertEquals(400, assertThrows(ApiError.class, () -> FriendRequest.parse(1, bad), bad.encode()).status());
    }
  }
}
