package newsfeed.common.http;

import io.vertx.core.Future;
import io.vertx.ext.web.client.WebClient;

/** Asks social-graph whether a participant exists (`GET /participant/{id}`): 404s for unknown ids in the feeds. */
public final class ParticipantClient {
  private final WebClient web;
  private final String baseUrl;

  public ParticipantClient(WebClient web, String baseUrl) {
    this.web = web;
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
  }

  /** true/false when social-graph says so; a failed future when it cannot answer. */
  public Future<Boolean> exists(long id) {
    return web.getAbs(baseUrl + "/participant/" + id).timeout(2_000).send().compose(resp -> switch (resp.statusCode()) {
      case 200 -> Future.succeededFuture(true);
      case 404 -> Future.succeededFuture(false);
      default -> Future.failedFuture("social-graph answered " + resp.statusCode());
    });
  }
}
