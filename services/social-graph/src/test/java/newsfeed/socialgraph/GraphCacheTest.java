package newsfeed.socialgraph;

import newsfeed.socialgraph.GraphCache.FriendsLookup;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GraphCacheTest {
  private static final List<Friend> FRIENDS =
      List.of(new Friend(11, 5, 2), new Friend(12, 5, 9), new Friend(40, 5, 31));

  @Test
  void keysAreVersionedAndPerParticipant() {
    assertEquals("sg:v1:participant:42", GraphCache.participantKey(42));
    assertEquals("sg:v1:friends:42", GraphCache.friendsKey(42));
    assertEquals("sg:v1:friends-gen:42", GraphCache.generationKey(42));
  }

  @Test
  void friendListsRoundTrip() {
    assertEquals("11:2,12:9,40:31", GraphCache.encode(FRIENDS));
    assertEquals(FRIENDS, GraphCache.decode(5, "11:2,12:9,40:31"));
    assertEquals(List.of(), GraphCache.decode(5, GraphCache.encode(List.of())));
    assertNull(GraphCache.decode(5, "11:2,garbage"));
    assertNull(GraphCache.decode(5, "11"));
  }

  @Test
  void aListStampedWithTheCurrentGenerationIsAHit() {
    FriendsLookup hit = GraphCache.lookup(5, "g1|11:2,12:9,40:31", "g1");
    assertEquals(FRIENDS, hit.friends());
    assertNull(hit.stamp(), "a hit is never re-filled");
    FriendsLookup noFriends = GraphCache.lookup(5, "g1|", "g1");
    assertEquals(List.of(), noFriends.friends());
    FriendsLookup big = GraphCache.lookup(5, "g1|*", "g1");
    assertTrue(big.big());
    assertNull(big.friends());
  }

  @Test
  void aListFromBeforeTheLastWriteIsAMissStampedWithTheNewGeneration() {
    FriendsLookup stale = GraphCache.lookup(5, "g1|11:2", "g2");
    assertNull(stale.friends());
    assertFalse(stale.big());
    assertEquals("g2", stale.stamp());
    assertEquals("g3", GraphCache.lookup(5, null, "g3").stamp());
    // no generation known (the cache reads put a fresh one in place of a missing one): neither a hit nor a fill
    FriendsLookup unknown = GraphCache.lookup(5, "g1|11:2", null);
    assertNull(unknown.friends());
    assertNull(unknown.stamp());
    assertEquals("g1", GraphCache.lookup(5, "g1|bad:list", "g1").stamp(), "an unreadable value is a miss");
    assertEquals("g1", GraphCache.lookup(5, "no-bar", "g1").stamp());
  }
}
