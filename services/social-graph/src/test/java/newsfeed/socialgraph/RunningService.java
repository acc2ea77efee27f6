package newsfeed.socialgraph;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.metrics.ServiceMetrics;
import newsfeed.common.testing.StackEnv;

import java.util.HashMap;
import java.util.Map;
import static newsfeed.common.testing.Waiting.freePort;

/**
 * The social-graph verticle deployed in the test's Vert.x on a free port, configured like production from
 * environment variables: the running stack's stores (StackEnv) unless a test overrides some, e.g. a closed port.
 */
final class RunningService {
  final int port;
  final PrometheusMeterRegistry registry = ServiceMetrics.create("social-graph");
  private final Vertx vertx;
  private final WebClient http;
  private final String deploymentId;
  private boolean undeployed;

  private RunningService(Vertx vertx, Map<String, String> overrides) throws Exception {
    this.vertx = vertx;
    this.port = freePort();
    Map<String, String> env = new HashMap<>();
    for (String name : new String[] {"PG_HOST", "PG_PORT", "PG_DATABASE", "PG_USER", "PG_PASSWORD", "REDIS_URL"}) {
      env.put(name, StackEnv.get(name));
    }
    env.put("HTTP_HOST", "127.0.0.1");
    env.put("HTTP_PORT", Integer.toString(port));
    env.put("SHUTDOWN_GRACE_SECONDS", "2");
    env.put("PG_POOL_SIZE", "4");
    env.putAll(overrides);
    SocialGraphConfig config = SocialGraphConfig.fromEnv(env);
    this.http = WebClient.create(vertx);
    this.deploymentId = vertx.deployVerticle(new SocialGraphVerticle(config, registry)).await();
  }

  static RunningService deploy(Vertx vertx, Map<String, String> overrides) throws Exception {
    return new RunningService(vertx, overrides);
  }

  static RunningService deploy(Vertx vertx) throws Exception {
    return deploy(vertx, Map.of());
  }

  /** Stops the service as its Main does (the verticle's stop); a second call does nothing. */
  void undeploy() {
    if (undeployed) {
      return;
    }
    undeployed = true;
    vertx.undeploy(deploymentId).await();
    http.close();
  }

  HttpResponse<Buffer> get(String uri) {
    return http.get(port, "127.0.0.1", uri).send().await();
  }

  HttpResponse<Buffer> post(String uri, String body) {
    return post(uri, Buffer.buffer(body));
  }

  HttpResponse<Buffer> post(String uri, Buffer body) {
    return http.post(port, "127.0.0.1", uri).putHeader("Content-Type", "application/json").sendBuffer(body).await();
  }

  /** A POST with this Content-Type (none when null). */
  HttpResponse<Buffer> post(String uri, String contentType, String body) {
    var request = http.post(port, "127.0.0.1", uri);
    if (contentType != null) {
      request.putHeader("Content-Type", contentType);
    }
    return request.sendBuffer(Buffer.buffer(body)).await();
  }

  HttpResponse<Buffer> post(String uri, JsonObject body) {
    return post(uri, body.encode());
  }

  /** A JSON POST with this Authorization header (none when null). */
  HttpResponse<Buffer> postAs(String authorization, String uri, JsonObject body) {
    return postWith("Authorization", authorization, uri, body);
  }

  /** A JSON POST with this header (none when {@code value} is null). */
  HttpResponse<Buffer> postWith(String header, String value, String uri, JsonObject body) {
    var request = http.post(port, "127.0.0.1", uri).putHeader("Content-Type", "application/json");
    if (value != null) {
      request.putHeader(header, value);
    }
    return request.sendBuffer(body.toBuffer()).await();
  }

  /** POST /participant with this Idempotency-Key. */
  HttpResponse<Buffer> createWithKey(String key, String name) {
    return postWith("Idempotency-Key", key, "/participant", new JsonObject().put("name", name));
  }

  long createParticipant(String name) {
    HttpResponse<Buffer> resp = post("/participant", new JsonObject().put("name", name));
    if (resp.statusCode() != 200) {
      throw new IllegalStateException("POST /participant answered " + resp.statusCode() + ": " + resp.bodyAsString());
    }
    return resp.bodyAsJsonObject().getLong("id");
  }

  HttpResponse<Buffer> befriend(long from, long to) {
    return post("/participant/" + from + "/friends",
        new JsonObject().put("from", "/participant/" + from).put("to", "/participant/" + to));
  }

  /** The value of one Prometheus sample line starting with {@code series}, or 0 when it is not there. */
  double metric(String series) {
    return sample(get("/metrics").bodyAsString(), series);
  }

  /** {@link #metric}, read from the registry: also once the service stopped. */
  double registered(String series) {
    return sample(registry.scrape(), series);
  }

  private static double sample(String exposition, String series) {
    for (String line : exposition.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return 0;
  }
}
