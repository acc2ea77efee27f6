package newsfeed.common.testing;

import newsfeed.common.model.Links;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

/** The running social-graph service (classic API), used by tests to create participants and friendships. */
public final class SocialGraphApi {
  private final WebClient http;
  private final String baseUrl;

  public SocialGraphApi(WebClient http, String baseUrl) {
    this.http = http;
    this.baseUrl = baseUrl;
  }

  public long createParticipant(String name) {
    HttpResponse<Buffer> resp = http.postAbs(baseUrl + "/participant")
        .sendJsonObject(new JsonObject().put("name", name)).await();
    if (resp.statusCode() / 100 != 2) {
      throw new IllegalStateException("POST /participant: " + resp.statusCode() + " " + resp.bodyAsString());
    }
    return Links.participantId(resp.bodyAsJsonObject().getValue("id"));
  }

  public void befriend(long from, long to) {
    HttpResponse<Buffer> resp = http.postAbs(baseUrl + "/participant/" + from + "/friends")
        .sendJsonObject(new JsonObject().put("from", Links.participant(from)).put("to", Links.participant(to)))
        .await();
    if (resp.statusCode() / 100 != 2) {
      throw new IllegalStateException("POST /participant/" + from + "/friends: " + resp.statusCode() + " "
          + resp.bodyAsString());
    }
  }
}
