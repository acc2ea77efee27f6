package newsfeed.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A test class that holds docs/openapi.yaml as an {@link OpenApiCheck}: loaded once before its tests, closed after. */
abstract class WithOpenApiCheck {
  static OpenApiCheck check;

  @BeforeAll
  static void load() {
    check = new OpenApiCheck();
  }

  @AfterAll
  static void close() {
    check.close();
  }
}
