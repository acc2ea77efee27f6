package newsfeed.inbound;

import java.util.UUID;

/** Version-1 UUIDs at a chosen 100-ns timestamp: two posts of the same instant, or rows in a known order. */
final class TimeUuidsForTests {
  private TimeUuidsForTests() {
  }

  static UUID at(long timestamp, long node) {
    long msb = (timestamp << 32) | ((timestamp >>> 16) & 0xFFFF0000L) | 0x1000L | ((timestamp >>> 48) & 0x0FFFL);
    return new UUID(msb, 0x8000000000000000L | (node & 0x3FFFFFFFFFFFFFFFL));
  }
}
