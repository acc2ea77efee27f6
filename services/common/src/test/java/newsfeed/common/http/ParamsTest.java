package newsfeed.common.http;

import newsfeed.common.model.Links;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ParamsTest {

  @Test
  void participantIdMustBeAPositiveLong() {
    assertEquals(42, Params.participantId("42"));
    assertEquals(Long.MAX_VALUE, Params.participantId("9223372036854775807"));
    // only the API's own digits: no sign, no leading zero, no other script's digits (Long.parseLong takes those)
    for (String bad : new String[] {"0", "-1", "abc", "", "1.5", "99999999999999999999", "9223372036854775808", " 1",
        "+42", "042", "\u0664\u0662", "\uff14\uff12"}) {
      ApiError e = assertThrows(ApiError.class, () -> Params.participantId(bad), bad);
      assertEquals(400, e.status());
    }
  }

  @Test
  void limitDefaultsAndIsBounded() {
    assertEquals(20, Params.limit(null, 20, 100));
    assertEquals(20, Params.limit("", 20, 100));
    assertEquals(1, Params.limit("1", 20, 100));
    assertEquals(100, Params.limit("100", 20, 100));
    for (String bad : new String[] {"0", "101", "-5", "ten", "2.0", "+5", "05", "\uff15", "99999999999"}) {
      assertEquals(400, assertThrows(ApiError.class, () -> Params.limit(bad, 20, 100), bad).status());
    }
  }

  @Test
  void participantLinksParse() {
    assertEquals(7, Links.participantId("/participant/7"));
    assertEquals(7, Links.participantId(7));
    assertEquals("/participant/7", Links.participant(7));
    assertEquals(7, Links.participantId("7"));
    assertThrows(IllegalStateException.class, () -> Links.participantId("/participant/x"));
    assertThrows(IllegalStateException.class, () -> Links.participantId("/participant/+7"));
    assertThrows(IllegalStateException.class, () -> Links.participantId("/participant/07"));
    assertThrows(IllegalStateException.class, () -> Links.participantId(null));
  }
}
