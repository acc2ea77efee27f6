package newsfeed.common.http;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class IdempotencyKeyTest {
  @Test
  void absentIsNoKeyAndPrintableAsciiIsKeptAsIs() {
    assertNull(IdempotencyKey.parse(null));
    assertEquals("3f2b9c1e-5d7a-4b8e-9f00-1a2b3c4d5e6f", IdempotencyKey.parse("3f2b9c1e-5d7a-4b8e-9f00-1a2b3c4d5e6f"));
    assertEquals("a b~", IdempotencyKey.parse("a b~"));
    assertEquals("k".repeat(255), IdempotencyKey.parse("k".repeat(255)));
  }

  @Test
  void emptyBlankTooLongOrNotPrintableAsciiIs400() {
    for (String bad : new String[] {"", "   ", "k".repeat(256), "café", "tab\there", "new\nline", "\u007f"}) {
      ApiError e = assertThrows(ApiError.class, () -> IdempotencyKey.parse(bad), bad);
      assertEquals(400, e.status());
      assertEquals("invalid_header", e.code());
    }
  }
}
