package newsfeed.e2e;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

/**
 * The four running services over HTTP (classic API). Base URLs come from the environment that
 * ci/tests/e2e.sh exports: SOCIAL_GRAPH_URL, OUTBOUND_URL, INBOUND_URL, SEARCH_URL.
 */
final class Services implements AutoCloseable {
  final String socialGraph = env("SOCIAL_GRAPH_URL");
  final String outbound = env("OUTBOUND_URL");
  final String inbound = env("INBOUND_URL");
  final String search = env("SEARCH_URL");
  private final Vertx vertx = Vertx.vertx();
  private final WebClient http = WebClient.create(vertx, new WebClientOptions().setConnectTimeout(5_000));

  private static String env(String name) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(name + " is not set (ci/tests/e2e.sh exports it)");
    }
    return v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
  }

  HttpResponse<Buffer> get(String url) {
    return http.getAbs(url).timeout(10_000).send().await();
  }

  HttpResponse<Buffer> post(String url, JsonObject body) {
    return http.postAbs(url).timeout(10_000).sendJsonObject(body).await();
  }

  JsonArray getArray(String url) {
    HttpResponse<Buffer> resp = get(url);
    if (resp.statusCode() != 200) {
      throw new IllegalStateException("GET " + url + " answered " + resp.statusCode() + ": " + resp.bodyAsString());
    }
    return resp.bodyAsJsonArray();
  }

  JsonObject created(String url, JsonObject body) {
    HttpResponse<Buffer> resp = post(url, body);
    if (resp.statusCode() / 100 != 2) {
      throw new IllegalStateException("POST " + url + " answered " + resp.statusCode() + ": " + resp.bodyAsString());
    }
    return resp.bodyAsJsonObject();
  }

  long createParticipant(String name) {
    Object id = created(socialGraph + "/participant", new JsonObject().put("name", name)).getValue("id");
    return id instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(id).replace("/participant/", ""));
  }

  void befriend(long from, long to) {
    created(socialGraph + "/participant/" + from + "/friends",
        new JsonObject().put("from", link(from)).put("to", link(to)));
  }

  void post(long poster, String subject, String story) {
    created(outbound + "/participant/" + poster + "/outbound",
        new JsonObject().put("from", link(poster)).put("subject", subject).put("story", story));
  }

  static String link(long id) {
    return "/participant/" + id;
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
