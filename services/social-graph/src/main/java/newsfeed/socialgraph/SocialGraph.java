package newsfeed.socialgraph;

import io.vertx.core.Future;
import newsfeed.common.http.ApiError;
import newsfeed.socialgraph.FriendsRepository.Befriended;
import newsfeed.socialgraph.FriendsRepository.Befriending;
import newsfeed.socialgraph.GraphCache.FriendsLookup;

/**
 * The social graph with its cache-aside: PostgreSQL is the source of truth, Redis (through {@link GraphCache})
 * answers repeated reads, and every friendship write invalidates the lists of both participants before the
 * request is answered, so a client reading after its own write sees it.
 */
public final class SocialGraph {
  private final ParticipantRepository participants;
  private final FriendsRepository friends;
  private final GraphCache cache;
  private final Cancellations<Long> participantCancellations;
  private final Cancellations<Befriending> friendshipCancellations;

  SocialGraph(ParticipantRepository participants, FriendsRepository friends, GraphCache cache,
              Cancellations<Long> participantCancellations, Cancellations<Befriending> friendshipCancellations) {
    this.participants = participants;
    this.friends = friends;
    this.cache = cache;
    this.participantCancellations = participantCancellations;
    this.friendshipCancellations = friendshipCancellations;
  }

  /**
   * The new participant, or the one made with this Idempotency-Key ({@code key}, may be null); a create answered as
   * failed without knowing its outcome is cancelled in the background.
   */
  public Future<Participant> createParticipant(String name, String key) {
    return participants.create(name, key).onFailure(err -> {
      if (err instanceof ParticipantRepository.CreateUnresolved unresolved) {
        participantCancellations.cancel(unresolved.id());
      }
    });
  }

  /** The participant; a failed future with 404 when there is none. */
  public Future<Participant> participant(long id) {
    return cache.participant(id).compose(cached -> {
      if (cached != null) {
        return Future.succeededFuture(cached);
      }
      return participants.find(id).compose(p -> {
        if (p == null) {
          return Future.failedFuture(ApiError.participantNotFound(id));
        }
        cache.putParticipant(p);
        return Future.succeededFuture(p);
      });
    });
  }

  /** The friendship; a befriend answered as failed without knowing its outcome is cancelled in the background. */
  public Future<Befriended> befriend(long from, long to) {
    return friends.befriend(from, to).onFailure(err -> {
      if (err instanceof FriendsRepository.BefriendUnresolved unresolved) {
        friendshipCancellations.cancel(unresolved.write());
      }
    }).compose(result -> result.changed()
        ? cache.invalidateFriends(from, to).map(result)
        : Future.succeededFuture(result));
  }

  /** A page of the participant's friends ordered by friend id; a failed future with 404 for an unknown one. */
  public Future<FriendsPage> friends(long id, long afterId, int limit) {
    return cache.friends(id).compose(lookup -> {
      if (lookup.friends() != null) {
        return Future.succeededFuture(FriendsPage.slice(lookup.friends(), afterId, limit));
      }
      if (lookup.big() || lookup.stamp() == null) {
        return pageFromStore(id, afterId, limit);
      }
      return fillAndPage(id, lookup, afterId, limit);
    });
  }

  // a miss: read the whole list once (up to the cache cap), cache it, and answer the page from it
  private Future<FriendsPage> fillAndPage(long id, FriendsLookup lookup, long afterId, int limit) {
    return friends.page(id, 0, GraphCache.MAX_CACHED_FRIENDS + 1).compose(all -> {
      if (all.size() > GraphCache.MAX_CACHED_FRIENDS) {
        cache.putFriends(id, lookup.stamp(), all);
        return afterId == 0 && limit <= GraphCache.MAX_CACHED_FRIENDS
            ? Future.succeededFuture(FriendsPage.slice(all, 0, limit))
            : pageFromStore(id, afterId, limit);
      }
      Future<Void> exists = all.isEmpty() ? participant(id).mapEmpty() : Future.succeededFuture();
      return exists.map(v -> {
        cache.putFriends(id, lookup.stamp(), all);
        return FriendsPage.slice(all, afterId, limit);
      });
    });
  }

  private Future<FriendsPage> pageFromStore(long id, long afterId, int limit) {
    return friends.page(id, afterId, limit + 1).compose(rows -> {
      // an empty page past a cursor too: an unknown id is a 404 whether the list was read from the cache or not
      Future<Void> exists = rows.isEmpty() ? participant(id).mapEmpty() : Future.succeededFuture();
      return exists.map(v -> FriendsPage.of(rows, limit));
    });
  }
}
