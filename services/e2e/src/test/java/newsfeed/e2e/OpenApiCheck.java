package newsfeed.e2e;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.contract.Operation;
import io.vertx.openapi.impl.Utils;
import io.vertx.openapi.validation.RequestParameter;
import io.vertx.openapi.validation.RequestValidator;
import io.vertx.openapi.validation.ResponseValidator;
import io.vertx.openapi.validation.ValidatableResponse;
import io.vertx.openapi.validation.impl.RequestParameterImpl;
import io.vertx.openapi.validation.impl.ValidatableRequestImpl;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Holds a running service to docs/openapi.yaml: every request is sent for real, its response must validate
 * against the operation (declared status, headers, body schema, content type), and the spec's verdict on the
 * request must agree with the service's: what the service accepts (2xx) the spec allows, and what the spec
 * forbids the service rejects (4xx). The service may reject more than the spec can express (e.g. `from` not
 * the path's participant).
 */
final class OpenApiCheck implements AutoCloseable {
  final Vertx vertx = Vertx.vertx();
  static final String FORM = "application/x-www-form-urlencoded";
  final OpenAPIContract contract;
  /** The spec as written, form media types included. */
  final JsonObject spec;
  private final RequestValidator requests;
  private final ResponseValidator responses;
  private final WebClient http = WebClient.create(vertx, new WebClientOptions().setConnectTimeout(5_000));

  OpenApiCheck() {
    spec = Utils.readYamlOrJson(vertx, specPath().toString()).await();
    contract = OpenAPIContract.from(vertx, withoutJsonParameters(withoutForms(spec.copy()))).await();
    requests = RequestValidator.create(vertx, contract);
    responses = ResponseValidator.create(vertx, contract);
  }

  /**
   * vertx-openapi 5.0 refuses a contract with form request bodies (it validates JSON, multipart and plain text
   * only): they are left out of the contract it checks against, so a form request is judged by its response.
   */
  private static JsonObject withoutForms(JsonObject spec) {
    JsonObject paths = spec.getJsonObject("paths");
    for (String path : paths.fieldNames()) {
      JsonObject item = paths.getJsonObject(path);
      for (String key : item.fieldNames()) {
        // a body given by $ref (GraphQL's, in components) is JSON only
        if (item.getValue(key) instanceof JsonObject op && op.getJsonObject("requestBody") != null
            && op.getJsonObject("requestBody").getJsonObject("content") != null) {
          op.getJsonObject("requestBody").getJsonObject("content").remove(FORM);
        }
      }
    }
    return spec;
  }

  /**
   * vertx-openapi 5.0 refuses a parameter given by {@code content} (a JSON-encoded one, like GraphQL's
   * {@code variables}) and reads no JSON in a query value: such a parameter is left out of the contract it checks
   * against, so a request with one is judged by its response.
   */
  private static JsonObject withoutJsonParameters(JsonObject spec) {
    JsonObject paths = spec.getJsonObject("paths");
    for (String path : paths.fieldNames()) {
      JsonObject item = paths.getJsonObject(path);
      for (String key : item.fieldNames()) {
        if (item.getValue(key) instanceof JsonObject op && op.getJsonArray("parameters") != null) {
          op.put("parameters", new JsonArray(op.getJsonArray("parameters").stream()
              .filter(p -> !((JsonObject) p).containsKey("content")).toList()));
        }
      }
    }
    return spec;
  }

  /** docs/openapi.yaml of the repository: found upwards from the working directory (services/e2e). */
  static Path specPath() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path spec = dir.resolve("docs/openapi.yaml");
      if (Files.isRegularFile(spec)) {
        return spec;
      }
    }
    throw new IllegalStateException("docs/openapi.yaml not found above " + Path.of("").toAbsolutePath());
  }

  /** A base URL from the environment (ci/tests/e2e.sh exports them); a missing one fails the test. */
  static String url(String name) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(name + " is not set (ci/tests/e2e.sh exports it)");
    }
    return v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
  }

  /** What to send: the operation's path parameters, query parameters (in order) and an optional body. */
  static final class Call {
    final String operationId;
    final Map<String, String> path = new HashMap<>();
    final Map<String, String> query = new LinkedHashMap<>();
    Buffer body;
    String contentType;

    Call(String operationId) {
      this.operationId = operationId;
    }

    Call id(Object id) {
      path.put("id", String.valueOf(id));
      return this;
    }

    Call query(String name, Object value) {
      query.put(name, String.valueOf(value));
      return this;
    }

    Call json(JsonObject body) {
      return raw(body.encode());
    }

    Call raw(String body) {
      return typed("application/json", body);
    }

    /** A classic client's form body (`name=Ada&...`). */
    Call form(String body) {
      return typed(FORM, body);
    }

    Call typed(String contentType, String body) {
      this.body = Buffer.buffer(body);
      this.contentType = contentType;
      return this;
    }
  }

  static Call call(String operationId) {
    return new Call(operationId);
  }

  /** Sends the call to the service at {@code base}, checks it against the spec and returns the response. */
  HttpResponse<Buffer> send(String base, Call call) {
    Operation op = contract.operation(call.operationId);
    assertNotNull(op, "operation " + call.operationId + " is not in docs/openapi.yaml");
    String what = op.getHttpMethod() + " " + op.getOpenAPIPath() + " " + call.path + call.query
        + (call.body == null ? "" : " " + abbreviate(call.body.toString()));

    String requestProblem = FORM.equals(call.contentType) ? null : requestProblem(op, call);
    HttpResponse<Buffer> resp = request(base, op, call).await();

    int status = resp.statusCode();
    String contentType = resp.getHeader("Content-Type");
    Map<String, String> headers = new HashMap<>();
    resp.headers().forEach(h -> headers.put(h.getKey(), h.getValue()));
    Buffer body = resp.body();
    ValidatableResponse actual = body == null || body.length() == 0
        ? ValidatableResponse.create(status, headers)
        : ValidatableResponse.create(status, headers, body, mediaType(contentType));
    try {
      responses.validate(actual, call.operationId).await();
    } catch (Exception e) {
      fail(what + " -> " + status + " " + abbreviate(resp.bodyAsString()) + "\ndoes not match the spec: "
          + e.getMessage());
    }
    if ("application/json".equals(mediaType(contentType))) {
      assertEquals("application/json", contentType, what + ": JSON answers say so without parameters");
    }
    if (status / 100 == 2) {
      assertTrue(requestProblem == null, what + " -> " + status + ": the service accepted a request the spec "
          + "forbids: " + requestProblem);
    }
    if (requestProblem != null) {
      assertTrue(status / 100 == 4, what + " -> " + status + ": the spec forbids this request (" + requestProblem
          + ") but the service did not reject it");
    }
    return resp;
  }

  /** Why the spec forbids the request, or null when it allows it. */
  private String requestProblem(Operation op, Call call) {
    Map<String, RequestParameter> path = new HashMap<>();
    call.path.forEach((k, v) -> path.put(k, new RequestParameterImpl(v)));
    Map<String, RequestParameter> query = new HashMap<>();
    call.query.forEach((k, v) -> query.put(k, new RequestParameterImpl(v)));
    ValidatableRequestImpl request = new ValidatableRequestImpl(Map.of(), Map.of(), path, query,
        new RequestParameterImpl(call.body), call.contentType);
    try {
      requests.validate(request, op.getOperationId()).await();
      return null;
    } catch (Exception e) {
      return e.getMessage();
    }
  }

  private io.vertx.core.Future<HttpResponse<Buffer>> request(String base, Operation op, Call call) {
    String path = op.getOpenAPIPath();
    for (Map.Entry<String, String> p : call.path.entrySet()) {
      path = path.replace("{" + p.getKey() + "}", encode(p.getValue()).replace("+", "%20"));
    }
    StringBuilder uri = new StringBuilder(base).append(path);
    char sep = '?';
    for (Map.Entry<String, String> q : call.query.entrySet()) {
      uri.append(sep).append(encode(q.getKey())).append('=').append(encode(q.getValue()));
      sep = '&';
    }
    HttpRequest<Buffer> req = http.requestAbs(HttpMethod.valueOf(op.getHttpMethod().name()), uri.toString())
        .timeout(20_000);
    if (call.body == null) {
      return req.send();
    }
    return req.putHeader("Content-Type", call.contentType).sendBuffer(call.body);
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String mediaType(String contentType) {
    if (contentType == null) {
      return null;
    }
    int semi = contentType.indexOf(';');
    return (semi < 0 ? contentType : contentType.substring(0, semi)).trim();
  }

  private static String abbreviate(String s) {
    return s == null || s.length() <= 300 ? s : s.substring(0, 300) + "...(" + s.length() + " chars)";
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
