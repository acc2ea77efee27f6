package newsfeed.outbound;

import io.vertx.core.Future;
import newsfeed.common.http.ParticipantClient;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whether a participant exists, asked of social-graph once per id: participants are never deleted, so an id
 * known to exist stays known (a bounded LRU set, used on the verticle's event loop only). Unknown ids are not
 * remembered: the participant may be created a moment later.
 */
final class KnownParticipants {
  private final ParticipantClient client;
  private final Map<Long, Boolean> known;

  KnownParticipants(ParticipantClient client, int capacity) {
    this.client = client;
    this.known = new LinkedHashMap<>(1024, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
        return size() > capacity;
      }
    };
  }

  /** true/false as social-graph says; a failed future when it cannot answer. */
  Future<Boolean> exists(long id) {
    if (known.get(id) != null) {
      return Future.succeededFuture(true);
    }
    return client.exists(id).onSuccess(exists -> {
      if (exists) {
        known.put(id, Boolean.TRUE);
      }
    });
  }
}
