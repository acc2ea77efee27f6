package newsfeed.e2e;

import io.vertx.core.json.JsonObject;
import io.vertx.openapi.contract.Operation;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * docs/openapi.yaml without running services: it is a valid OpenAPI document (vertx-openapi checks it against
 * the OpenAPI meta-schema while loading) and it describes exactly the routes the four services register.
 */
class OpenApiSpecTest extends WithOpenApiCheck {
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
        Map.entry("graphql", "POST /graphql"),
        Map.entry("graphqlGet", "GET /graphql"),
        Map.entry("graphqlRoot", "POST /"),
        Map.entry("live", "GET /health/live"),
        Map.entry("ready", "GET /health/ready"),
        Map.entry("events", "GET /health/events"),
        Map.entry("metrics", "GET /metrics")));
    assertEquals(expected, routes);
  }

  @Test
  void everyCreateTakesJsonAndFormsAnswers200AndDeclares415() {
    for (Operation op : check.contract.operations()) {
      // GraphQL over HTTP is JSON only (a form is its 415); its creates are mutations, checked in the e2e
      if (op.getRequestBody() == null || op.getTags().contains("graphql")) {
        continue;
      }
      assertNotNull(op.getResponse(200), op.getOperationId() + " answers 200");
      assertNull(op.getResponse(201), op.getOperationId() + " answers 200, not 201, as the classic contract");
      assertNotNull(op.getResponse(415), op.getOperationId() + " declares 415");
      JsonObject content = check.spec.getJsonObject("paths").getJsonObject(op.getOpenAPIPath())
          .getJsonObject(op.getHttpMethod().name().toLowerCase(java.util.Locale.ROOT))
          .getJsonObject("requestBody").getJsonObject("content");
      assertEquals(Set.of("application/json", OpenApiCheck.FORM), content.fieldNames(), op.getOperationId());
      assertEquals(content.getJsonObject("application/json").getJsonObject("schema"),
          content.getJsonObject(OpenApiCheck.FORM).getJsonObject("schema"), "a form has the JSON body's fields");
    }
  }

  @Test
  void everyApiOperationDeclaresItsErrors() {
    for (Operation op : check.contract.operations()) {
      if (op.getTags().contains("operations")) {
        continue;
      }
      assertNotNull(op.getResponse(400), op.getOperationId() + " declares 400");
      assertNotNull(op.getResponse(503), op.getOperationId() + " declares 503");
      // the HTTP server's own limits, answered before any route
      assertNotNull(op.getResponse(414), op.getOperationId() + " declares 414");
      assertNotNull(op.getResponse(431), op.getOperationId() + " declares 431");
      if (op.getRequestBody() != null) {
        assertNotNull(op.getResponse(413), op.getOperationId() + " declares 413");
        assertNotNull(op.getResponse(417), op.getOperationId() + " declares 417");
      }
    }
  }
}
