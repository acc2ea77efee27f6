package newsfeed.socialgraph;

import newsfeed.common.http.ApiError;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class FriendsPageTest {
  private static List<Friend> friends(int n) {
    List<Friend> all = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      all.add(new Friend(100 + i, 1, 10L * i));
    }
    return all;
  }

  private static String b64(String s) {
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes());
  }

  @Test
  void cursorsRoundTripAndForeignOnesAre400() {
    assertEquals(0, FriendsCursor.decode(null));
    assertEquals(0, FriendsCursor.decode(""));
    assertEquals(123456789012L, FriendsCursor.decode(FriendsCursor.encode(123456789012L)));
    for (String bad : new String[] {"x", "!!", b64("f:0"), b64("f:-1"), b64("f:x"), b64("g:1"), b64("123"),
        b64("f:99999999999999999999")}) {
      assertEquals(400, assertThrows(ApiError.class, () -> FriendsCursor.decode(bad), bad).status());
    }
  }

  @Test
  void aCompleteListIsPagedByFriendId() {
    List<Friend> all = friends(5);
    FriendsPage p1 = FriendsPage.slice(all, 0, 2);
    assertEquals(all.subList(0, 2), p1.friends());
    FriendsPage p2 = FriendsPage.slice(all, FriendsCursor.decode(p1.nextCursor()), 2);
    assertEquals(all.subList(2, 4), p2.friends());
    FriendsPage p3 = FriendsPage.slice(all, FriendsCursor.decode(p2.nextCursor()), 2);
    assertEquals(all.subList(4, 5), p3.friends());
    assertNull(p3.nextCursor());
    assertNull(FriendsPage.slice(all, 0, 5).nextCursor(), "exactly a page: no next one");
    assertEquals(List.of(), FriendsPage.slice(all, 50, 2).friends());
    assertEquals(List.of(), FriendsPage.slice(List.of(), 0, 2).friends());
  }

  @Test
  void aPageReadWithOneExtraRowKnowsWhetherMoreFollow() {
    List<Friend> three = friends(3);
    FriendsPage more = FriendsPage.of(three, 2);
    assertEquals(three.subList(0, 2), more.friends());
    assertEquals(20, FriendsCursor.decode(more.nextCursor()));
    FriendsPage last = FriendsPage.of(three, 3);
    assertEquals(three, last.friends());
    assertNull(last.nextCursor());
  }
}
