package newsfeed.common.testing;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;

import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The health endpoints of a consuming service (inbound, search) on a running stack, as docs/contracts.md gives them. */
public final class ConsumerHealth {
  private ConsumerHealth() {
  }

  /**
   * Live; ready with exactly {@code store} UP, what its HTTP API needs; and its event path (/health/events: the broker
   * and the consumer) UP. {@code get} sends a GET of a path to the service.
   */
  public static void assertUp(Function<String, HttpResponse<Buffer>> get, String store) {
    assertEquals(200, get.apply("/health/live").statusCode());
    HttpResponse<Buffer> ready = get.apply("/health/ready");
    assertEquals(200, ready.statusCode(), ready.bodyAsString());
    assertEquals(new JsonObject().put(store, "UP"), ready.bodyAsJsonObject().getJsonObject("checks"),
        "readiness is what the HTTP API needs");
    HttpResponse<Buffer> events = get.apply("/health/events");
    assertEquals(200, events.statusCode(), events.bodyAsString());
    assertEquals(new JsonObject().put("kafka", "UP").put("consumer", "UP"),
        events.bodyAsJsonObject().getJsonObject("checks"));
  }
}
