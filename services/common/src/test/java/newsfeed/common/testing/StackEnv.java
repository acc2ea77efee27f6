package newsfeed.common.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Endpoints of the running stack for integration tests: the process environment (ci/tests/e2e.sh exports
 * stack.env), else the file named by NEWSFEED_STACK_ENV. A missing endpoint fails the test: ITs never skip.
 */
public final class StackEnv {
  private static final Map<String, String> VALUES = load();

  private StackEnv() {
  }

  public static String get(String name) {
    String v = VALUES.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(name + " is not set: export the stack's stack.env or set NEWSFEED_STACK_ENV");
    }
    return v;
  }

  private static Map<String, String> load() {
    Map<String, String> values = new HashMap<>();
    String file = System.getenv("NEWSFEED_STACK_ENV");
    if (file != null && !file.isBlank()) {
      try {
        for (String line : Files.readAllLines(Path.of(file))) {
          int eq = line.indexOf('=');
          if (!line.startsWith("#") && eq > 0) {
            values.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
          }
        }
      } catch (IOException e) {
        throw new IllegalStateException("cannot read NEWSFEED_STACK_ENV " + file, e);
      }
    }
    values.putAll(System.getenv());
    return values;
  }
}
