package newsfeed.common.http;

import io.vertx.core.Future;
import io.vertx.ext.web.client.WebClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Asks social-graph whether a participant exists (`GET /participant/{id}`): 404s for unknown ids in the feeds and
 * for posts. It may remember ids known to exist (participants are never deleted, so a known id stays known) in a
 * bounded LRU set, used on the verticle's event loop only; unknown ids are not remembered, the participant may be
 * created a moment later.
 */
public final class ParticipantClient {
  private static final Logger LOG = LoggerFactory.getLogger(ParticipantClient.class);

  private final WebClient web;
  private final String baseUrl;
  private final Map<Long, Boolean> known;

  /** A client that asks social-graph every time. */
  public ParticipantClient(WebClient web, String baseUrl) {
    this(web, baseUrl, 0);
  }

  /** A client that remembers up to {@code remembered} ids known to exist (0: none). */
  public ParticipantClient(WebClient web, String baseUrl, int remembered) {
    this.web = web;
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.known = remembered <= 0 ? null : new LinkedHashMap<>(1024, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
        return size() > remembered;
      }
    };
  }

  /** true/false when social-graph says so; a failed future when it cannot answer. */
  public Future<Boolean> exists(long id) {
    if (known != null && known.get(id) != null) {
      return Future.succeededFuture(true);
    }
    return web.getAbs(baseUrl + "/participant/" + id).timeout(2_000).send().compose(resp -> switch (resp.statusCode()) {
      case 200 -> {
        if (known != null) {
          known.put(id, Boolean.TRUE);
        }
        yield Future.succeededFuture(true);
      }
      case 404 -> Future.succeededFuture(false);
      default -> Future.failedFuture("social-graph answered " + resp.statusCode());
    });
  }

  /**
   * Fails with {@link ApiError#participantNotFound} when social-graph says there is no such participant. When it
   * cannot answer the participant is taken to exist: a post must not depend on another service being up (the
   * fan-out of a post by an unknown id simply reaches no one) and an empty feed stays an empty feed.
   */
  public Future<Void> require(long id) {
    return exists(id)
        .recover(err -> {
          LOG.debug("social-graph could not tell whether participant {} exists, taking it as existing: {}", id,
              err.toString());
          return Future.succeededFuture(true);
        })
        .compose(exists -> exists ? Future.succeededFuture() : Future.failedFuture(ApiError.participantNotFound(id)));
  }
}
