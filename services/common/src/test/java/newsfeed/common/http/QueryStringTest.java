package newsfeed.common.http;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which query strings are percent-encoded UTF-8 (the 400 itself: FailureHandlerTest). */
class QueryStringTest {
  @Test
  void percentEncodedUtf8AndPlainCharactersAreWellFormed() {
    for (String ok : new String[] {"", "limit=20", "keywords=caf%C3%A9+au+lait", "keywords=%F0%9F%98%80",
        "cursor=AAAA-_&limit=5", "a=%25", "keywords=caf\u00c3\u00a9"}) {
      assertTrue(QueryString.wellFormed(ok), ok);
    }
  }

  @Test
  void bytesThatAreNotUtf8AndBrokenEscapesAreNot() {
    for (String bad : new String[] {"keywords=%FF", "keywords=%C3%28", "keywords=%ED%A0%80", "limit=%", "limit=%2",
        "limit=%zz", "keywords=caf\u00e9", "keywords=\u20ac"}) {
      assertFalse(QueryString.wellFormed(bad), bad);
    }
  }
}
