package newsfeed.e2e;

import io.vertx.openapi.contract.Operation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * docs/openapi.yaml without running services: it is a valid OpenAPI document (vertx-openapi checks it against
 * the OpenAPI meta-schema while loading) and it describes exactly the routes the four services register.
 */
class OpenApiSpecTest {
  private static OpenApiCheck check;

  @BeforeAll
  static void load() {
    check = new OpenApiCheck();
  }

  @AfterAll
  static void close() {
    check.close();
  }

  @Test
  void theSpecHasExactlyTheRoutesOfTheServices() {
    Map<String, String> routes = new TreeMap<>();
    for (Operation op : check.contract.operations()) {
      routes.put(op.getOperationId(), op.getHttpMethod() + " " + op.getOpenAPIPath());
    }
    Map<String, String> expected = new TreeMap<>(Map.ofEntries(
        Map.entry("createParticipant", "POST /participant"),
        Map.entry("getParticipant", "GET /participant/{id}"),
        Map.entry("befriend", "POST /participant/{id}/friends"),
        Map.entry("getFriends", "GET /participant/{id}/friends"),
        Map.entry("postOutbound", "POST /participant/{id}/outbound"),
        Map.entry("getOutbound", "GET /participant/{id}/outbound"),
        Map.entry("getInbound", "GET /participant/{id}/inbound"),
        Map.entry("searchOutbound", "GET /outbound"),
        Map.entry("live", "GET /health/live"),
        Map.entry("ready", "GET /health/ready"),
        Map.entry("metrics", "GET /metrics")));
    assertEquals(expected, routes);
  }

  @Test
  void everyApiOperationDeclaresItsErrors() {
    for (Operation op : check.contract.operations()) {
      if (op.getTags().contains("operations")) {
        continue;
      }
      assertNotNull(op.getResponse(400), op.getOperationId() + " declares 400");
      assertNotNull(op.getResponse(503), op.getOperationId() + " declares 503");
      if (op.getRequestBody() != null) {
        assertNotNull(op.getResponse(413), op.getOperationId() + " declares 413");
      }
    }
  }
}
