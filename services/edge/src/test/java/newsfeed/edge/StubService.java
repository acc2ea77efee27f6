package newsfeed.edge;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A stand-in for one of the four services on a free local port: answers each "METHOD /path" (query string left
 * out) with the answer its function gives (null: the API's 404 participant_not_found), and records every request
 * so a test can count the calls edge made.
 */
final class StubService implements AutoCloseable {
  /** A status and a JSON body. */
  record Answer(int status, Object body) {
  }

  private final HttpServer server;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();

  StubService(Vertx vertx, Function<String, Answer> answers) {
    this.server = vertx.createHttpServer().requestHandler(req -> {
      String key = req.method() + " " + req.path();
      requests.add(key);
      authorizations.add(String.valueOf(req.getHeader("Authorization")));
      req.body().onComplete(ar -> {
        Answer a = answers.apply(key);
        if (a == null) {
          String id = req.path().replaceAll("^/participant/([^/]+).*$", "$1");
          a = notFound(id);
        }
        req.response().setStatusCode(a.status()).putHeader("Content-Type", "application/json")
            .end(Json.encode(a.body()));
      });
    }).listen(0, "127.0.0.1").await();
  }

  static Answer ok(Object body) {
    return new Answer(200, body);
  }

  static Answer notFound(String id) {
    return new Answer(404, Map.of("error", "participant_not_found", "message", "no participant with id " + id,
        "status", 404));
  }

  static JsonObject participant(long id, String name) {
    return new JsonObject().put("id", id).put("name", name).put("link", "/participant/" + id);
  }

  String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  /** How many requests "METHOD /path" got since the last {@link #reset()}. */
  long count(String key) {
    return requests.stream().filter(key::equals).count();
  }

  /** Every request since the last {@link #reset()}, in order. */
  List<String> requests() {
    return List.copyOf(requests);
  }

  /** The Authorization header of every request since the last {@link #reset()} ("null": none), in order. */
  List<String> authorizations() {
    return List.copyOf(authorizations);
  }

  void reset() {
    requests.clear();
    authorizations.clear();
  }

  @Override
  public void close() {
    server.close().await();
  }
}
