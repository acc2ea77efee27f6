package newsfeed.socialgraph;

import java.util.ArrayList;
import java.util.List;

/** One page of a friend list (ordered by friend id) and the cursor of the next page, null on the last one. */
public record FriendsPage(List<Friend> friends, String nextCursor) {

  /** The page of a complete, sorted list: friends after {@code afterId}, at most {@code limit}. */
  static FriendsPage slice(List<Friend> all, long afterId, int limit) {
    List<Friend> page = new ArrayList<>(Math.min(limit, all.size()));
    boolean more = false;
    for (Friend f : all) {
      if (f.to() <= afterId) {
        continue;
      }
      if (page.size() == limit) {
        more = true;
        break;
      }
      page.add(f);
    }
    return new FriendsPage(page, more ? FriendsCursor.encode(page.get(page.size() - 1).to()) : null);
  }

  /** A page read with one row more than asked: that row only says whether a next page exists. */
  static FriendsPage of(List<Friend> rowsPlusOne, int limit) {
    if (rowsPlusOne.size() <= limit) {
      return new FriendsPage(rowsPlusOne, null);
    }
    List<Friend> page = rowsPlusOne.subList(0, limit);
    return new FriendsPage(page, FriendsCursor.encode(page.get(limit - 1).to()));
  }
}
