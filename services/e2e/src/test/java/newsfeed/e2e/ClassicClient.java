package newsfeed.e2e;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Requests as the classic load client (clojure-news-feed `client/load`, clj-http) sends them to the single API:
 * creates as a JSON body when {@code json} (its USE_JSON=true), else as form params (URL-encoded UTF-8, spaces as
 * '+'); reads and searches as plain GETs. Like the classic client, any answer but 200 is a failure.
 */
final class ClassicClient implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final WebClient http = WebClient.create(vertx, new WebClientOptions().setConnectTimeout(5_000));
  private final String base;
  private final boolean json;

  ClassicClient(String base, boolean json) {
    this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    this.json = json;
  }

  /** POST of a create; the fields in the order the classic client builds them. */
  Object create(String path, Map<String, String> fields) {
    var request = http.postAbs(base + path).timeout(10_000);
    HttpResponse<Buffer> resp;
    if (json) {
      JsonObject body = new JsonObject();
      fields.forEach(body::put);
      resp = request.putHeader("Content-Type", "application/json").putHeader("Accept", "application/json")
          .sendBuffer(body.toBuffer()).await();
    } else {
      StringJoiner form = new StringJoiner("&");
      fields.forEach((k, v) -> form.add(enc(k) + "=" + enc(v)));
      resp = request.putHeader("Content-Type", "application/x-www-form-urlencoded")
          .sendBuffer(Buffer.buffer(form.toString())).await();
    }
    return ok("POST " + path, resp);
  }

  Object get(String pathAndQuery) {
    return ok("GET " + pathAndQuery, http.getAbs(base + pathAndQuery).timeout(10_000).send().await());
  }

  private static Object ok(String what, HttpResponse<Buffer> resp) {
    if (resp.statusCode() != 200) {
      throw new IllegalStateException("status " + resp.statusCode() + " from " + what + ": " + resp.bodyAsString());
    }
    return Json.decodeValue(resp.bodyAsString());
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  static String link(long id) {
    return "/participant/" + id;
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
