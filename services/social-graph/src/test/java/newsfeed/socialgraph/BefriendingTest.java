package newsfeed.socialgraph;

import newsfeed.socialgraph.FriendsRepository.Befriending;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A befriend's write as the cancellation backlog in Redis keeps it. */
class BefriendingTest {

  @Test
  void readsBackWhatItWrote() {
    for (Befriending write : new Befriending[] {new Befriending(1, 2, 3), new Befriending(42, 7, -9_000_000_000L),
        new Befriending(Long.MAX_VALUE, 1, Long.MIN_VALUE)}) {
      assertEquals(write, Befriending.decode(write.encode()));
    }
  }

  @Test
  void refusesWhatItDidNotWrite() {
    for (String bad : new String[] {"", "1:2", "1:2:3:4", "1:2:x", "1::3", "1-2 (inserted_by 3)"}) {
      assertThrows(IllegalArgumentException.class, () -> Befriending.decode(bad), bad);
    }
  }
}
