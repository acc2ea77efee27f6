package newsfeed.edge;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.metrics.ServiceMetrics;

import java.util.HashMap;
import java.util.Map;

import static newsfeed.common.testing.Waiting.freePort;

/** The edge verticle deployed in the test's Vert.x on a free port, configured from environment variables. */
final class RunningEdge implements AutoCloseable {
  /** A test's own limit: an edge that hangs fails the test instead of blocking the build. */
  private static final long CLIENT_TIMEOUT_MS = 30_000;
  final int port;
  final PrometheusMeterRegistry registry = ServiceMetrics.create("edge");
  private final Vertx vertx;
  private final WebClient http;
  private final String deploymentId;

  /** {@code env}: the services' URLs, and any other setting (DOWNSTREAM_TIMEOUT_MS is 3000 unless given). */
  RunningEdge(Vertx vertx, Map<String, String> env) throws Exception {
    this.vertx = vertx;
    this.port = freePort();
    Map<String, String> all = new HashMap<>();
    all.put("DOWNSTREAM_TIMEOUT_MS", "3000");
    all.putAll(env);
    all.put("HTTP_HOST", "127.0.0.1");
    all.put("HTTP_PORT", Integer.toString(port));
    all.put("SHUTDOWN_GRACE_SECONDS", "2");
    this.http = WebClient.create(vertx);
    this.deploymentId = vertx.deployVerticle(new EdgeVerticle(EdgeConfig.fromEnv(all), registry)).await();
  }

  /** POST {"query": ...} to {@code path} as the classic client does. */
  HttpResponse<Buffer> query(String path, String query) {
    return queryAsync(path, query).await();
  }

  /** The same, without waiting for the answer. */
  Future<HttpResponse<Buffer>> queryAsync(String path, String query) {
    return queryAs(null, path, query);
  }

  /** POST {"query": ...} with this Authorization header (none when null), without waiting for the answer. */
  Future<HttpResponse<Buffer>> queryAs(String authorization, String path, String query) {
    var request = http.post(port, "127.0.0.1", path).timeout(CLIENT_TIMEOUT_MS)
        .putHeader("Content-Type", "application/json");
    if (authorization != null) {
      request.putHeader("Authorization", authorization);
    }
    return request.sendBuffer(new JsonObject().put("query", query).toBuffer());
  }

  HttpResponse<Buffer> post(String path, String contentType, Buffer body) {
    return http.post(port, "127.0.0.1", path).timeout(CLIENT_TIMEOUT_MS).putHeader("Content-Type", contentType)
        .sendBuffer(body).await();
  }

  HttpResponse<Buffer> get(String uri) {
    return http.get(port, "127.0.0.1", uri).timeout(CLIENT_TIMEOUT_MS).send().await();
  }

  @Override
  public void close() {
    vertx.undeploy(deploymentId).await();
    http.close();
  }
}
