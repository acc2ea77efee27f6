package newsfeed.socialgraph;

import io.vertx.core.Vertx;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Map;

/**
 * The ITs' common setup, as a JUnit extension on a static field: one Vert.x per test class, the social-graph
 * verticle on the running stack (RunningService, with the class's environment overrides) and direct access to
 * that stack's PostgreSQL and Redis (Stores), all closed after the class.
 */
final class ServiceOnStack implements BeforeAllCallback, AfterAllCallback {
  private final Map<String, String> overrides;
  private Vertx vertx;
  private RunningService service;
  private Stores stores;

  ServiceOnStack() {
    this(Map.of());
  }

  ServiceOnStack(Map<String, String> overrides) {
    this.overrides = overrides;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    vertx = Vertx.vertx();
    service = RunningService.deploy(vertx, overrides);
    stores = new Stores(vertx);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (stores != null) {
      stores.close();
    }
    if (vertx != null) {
      vertx.close().await();
    }
  }

  Vertx vertx() {
    return vertx;
  }

  RunningService service() {
    return service;
  }

  Stores stores() {
    return stores;
  }
}
