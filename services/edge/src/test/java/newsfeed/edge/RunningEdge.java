package newsfeed.edge;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.http.ServiceMetrics;

import java.util.HashMap;
import java.util.Map;

import static newsfeed.common.testing.Waiting.freePort;

/** The edge verticle deployed in the test's Vert.x on a free port, configured from environment variables. */
final class RunningEdge implements AutoCloseable {
  final int port;
  final PrometheusMeterRegistry registry = ServiceMetrics.create("edge");
  private final Vertx vertx;
  private final WebClient http;
  private final String deploymentId;

  RunningEdge(Vertx vertx, Map<String, String> downstream) throws Exception {
    this.vertx = vertx;
    this.port = freePort();
    Map<String, String> env = new HashMap<>(downstream);
    env.put("HTTP_HOST", "127.0.0.1");
    env.put("HTTP_PORT", Integer.toString(port));
    env.put("SHUTDOWN_GRACE_SECONDS", "2");
    env.put("DOWNSTREAM_TIMEOUT_MS", "3000");
    this.http = WebClient.create(vertx);
    this.deploymentId = vertx.deployVerticle(new EdgeVerticle(EdgeConfig.fromEnv(env), registry)).await();
  }

  /** POST {"query": ...} to {@code path} as the classic client does. */
  HttpResponse<Buffer> query(String path, String query) {
    return post(path, "application/json", new JsonObject().put("query", query).toBuffer());
  }

  HttpResponse<Buffer> post(String path, String contentType, Buffer body) {
    return http.post(port, "127.0.0.1", path).putHeader("Content-Type", contentType).sendBuffer(body).await();
  }

  HttpResponse<Buffer> get(String uri) {
    return http.get(port, "127.0.0.1", uri).send().await();
  }

  @Override
  public void close() {
    vertx.undeploy(deploymentId).await();
    http.close();
  }
}
