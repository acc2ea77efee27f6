package newsfeed.e2e;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Requests as the classic load client (clojure-news-feed `client/load`, clj-http) sends them to the single API:
 * creates as form params (its default: URL-encoded UTF-8, spaces as '+'), as a JSON body (USE_JSON=true), or as
 * GraphQL (USE_GRAPHQL=true: `{"query": "..."}` POSTed to the root path); reads and searches as plain GETs, or
 * GraphQL queries. Like the classic client, any answer but 200 is a failure. With GATEWAY_HOST set, every request
 * carries that Host while it connects to the base URL's address: an Ingress's host name that only the cluster's
 * DNS resolves, reached at the controller's address.
 */
final class ClassicClient implements AutoCloseable {
  /** How creates (and, for GRAPHQL, the client's reads) are sent. */
  enum Mode { FORM, JSON, GRAPHQL }

  private final Vertx vertx = Vertx.vertx();
  private final WebClient http = WebClient.create(vertx, new WebClientOptions().setConnectTimeout(5_000));
  private final String base;
  private final Mode mode;
  private final String virtualHost = System.getenv("GATEWAY_HOST");

  ClassicClient(String base, Mode mode) {
    this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    this.mode = mode;
  }

  Mode mode() {
    return mode;
  }

  /** POST of a create; the fields in the order the classic client builds them. */
  Object create(String path, Map<String, String> fields) {
    var request = host(http.postAbs(base + path)).timeout(10_000);
    HttpResponse<Buffer> resp;
    if (mode == Mode.JSON) {
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

  /**
   * A GraphQL mutation as the classic client writes it: `mutation { create<Entity>(input: {k:"v",...})<returns> }`,
   * every value quoted (ids too) and not escaped, POSTed to the root path. Answers `data`.
   */
  JsonObject mutation(String entity, Map<String, String> params, String returns) {
    StringJoiner input = new StringJoiner(",");
    params.forEach((k, v) -> input.add(k + ":\"" + v + "\""));
    String create = "create" + Character.toUpperCase(entity.charAt(0)) + entity.substring(1);
    return graphql("mutation { " + create + "(input: {" + input + "})" + returns + "}");
  }

  /** A GraphQL query or mutation POSTed to the root path as JSON; a 200 without `errors`, its `data`. */
  JsonObject graphql(String query) {
    HttpResponse<Buffer> resp = host(http.postAbs(base + "/")).timeout(10_000)
        .putHeader("Content-Type", "application/json").putHeader("Accept", "application/json")
        .sendBuffer(new JsonObject().put("query", query).toBuffer()).await();
    JsonObject body = (JsonObject) ok("POST / " + query, resp);
    if (body.getValue("errors") != null) {
      throw new IllegalStateException("errors from POST / " + query + ": " + body.encode());
    }
    return body.getJsonObject("data");
  }

  Object get(String pathAndQuery) {
    return ok("GET " + pathAndQuery, host(http.getAbs(base + pathAndQuery)).timeout(10_000).send().await());
  }

  private HttpRequest<Buffer> host(HttpRequest<Buffer> request) {
    return virtualHost == null || virtualHost.isBlank() ? request : request.virtualHost(virtualHost);
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
