package newsfeed.inbound;

import newsfeed.common.model.Links;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import newsfeed.common.kafka.PermanentFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.metrics.StoreTimers;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a participant's friends from social-graph (classic `GET /participant/{id}/friends` -> [{id,from,to}]),
 * following `X-Next-Cursor` pages so a 100k-friend fan-out does not need one giant response.
 */
public final class FriendsClient {
  static final int PAGE_SIZE = 1000;
  private static final long TIMEOUT_MS = 10_000;

  private final WebClient web;
  private final String baseUrl;
  private final Timer ok;
  private final Timer error;

  public FriendsClient(WebClient web, String baseUrl, MeterRegistry registry) {
    this.web = web;
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.ok = StoreTimers.timer(registry, "social-graph", "get", "success");
    this.error = StoreTimers.timer(registry, "social-graph", "get", "error");
  }

  /** The ids of every friend; an unknown participant has none. Fails when social-graph is unavailable. */
  public Future<List<Long>> friendIds(long participantId) {
    return collect(participantId, null, new ArrayList<>());
  }

  private Future<List<Long>> collect(long participantId, String cursor, List<Long> ids) {
    String uri = baseUrl + "/participant/" + participantId + "/friends?limit=" + PAGE_SIZE
        + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
    return StoreTimers.time(() -> web.getAbs(uri).timeout(TIMEOUT_MS).send(), ok, error)
        .compose(resp -> {
          if (isUnknownParticipant(resp)) {
            return Future.succeededFuture(ids);
          }
          if (resp.statusCode() != 200) {
            String message = "social-graph answered " + resp.statusCode() + " for " + uri;
            return Future.failedFuture(isRefusal(resp.statusCode())
                ? new PermanentFailure(message) : new IllegalStateException(message));
          }
          ids.addAll(parse(participantId, resp));
          String next = resp.getHeader("X-Next-Cursor");
          return next == null || next.isEmpty() ? Future.succeededFuture(ids) : collect(participantId, next, ids);
        });
  }

  // a 4xx other than a bare 404 (a wrong URL: a deployment to fix), a timeout or a throttle says the request is wrong
  private static boolean isRefusal(int status) {
    return status / 100 == 4 && status != 404 && status != 408 && status != 429;
  }

  // only social-graph's own JSON 404 means "no such participant"; a bare 404 is a wrong URL and must be retried
  private static boolean isUnknownParticipant(HttpResponse<Buffer> resp) {
    if (resp.statusCode() != 404) {
      return false;
    }
    try {
      JsonObject body = resp.bodyAsJsonObject();
      return body != null && body.getValue("error") != null;
    } catch (DecodeException | ClassCastException e) {
      return false;
    }
  }

  /** A friend row links two participants; the friend is whichever end is not the poster. */
  static List<Long> parse(long participantId, HttpResponse<Buffer> resp) {
    JsonArray rows;
    try {
      rows = resp.bodyAsJsonArray();
    } catch (DecodeException | ClassCastException e) {
      throw new IllegalStateException("social-graph friends response is not a JSON array");
    }
    List<Long> ids = new ArrayList<>(rows == null ? 0 : rows.size());
    if (rows == null) {
      return ids;
    }
    for (Object o : rows) {
      if (!(o instanceof JsonObject row)) {
        throw new IllegalStateException("social-graph friends response has a non-object element");
      }
      long from = Links.participantId(row.getValue("from"));
      long to = Links.participantId(row.getValue("to"));
      ids.add(from == participantId ? to : from);
    }
    return ids;
  }
}
