package newsfeed.common.http;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.Set;
import java.util.TreeSet;

/**
 * The methods a router serves a path with: the {@code Allow} header a 405 must carry (RFC 9110, 15.5.6). Vert.x
 * knows them while it routes but does not expose them, so they are read from the router's routes: those with a
 * path template ({@code /participant/:id}, or a prefix ending in {@code *}) and methods of their own.
 */
public final class AllowedMethods {
  private AllowedMethods() {
  }

  /** {@code answer} (a failure handler of {@code router}), after it puts {@code Allow} on a 405. */
  public static Handler<RoutingContext> onNotAllowed(Router router, Handler<RoutingContext> answer) {
    return ctx -> {
      if (ctx.statusCode() == 405 && !ctx.response().headWritten()) {
        String allowed = of(router, ctx.normalizedPath());
        if (!allowed.isEmpty()) {
          ctx.response().putHeader("Allow", allowed);
        }
      }
      answer.handle(ctx);
    };
  }

  /** The methods, comma-separated in alphabetical order; empty when no route names the path. */
  static String of(Router router, String path) {
    Set<String> methods = new TreeSet<>();
    for (Route route : router.getRoutes()) {
      Set<HttpMethod> own = route.methods();
      if (own != null && !own.isEmpty() && route.getPath() != null && matches(route.getPath(), path)) {
        own.forEach(m -> methods.add(m.name()));
      }
    }
    return String.join(", ", methods);
  }

  /** Whether a path template names the path: {@code :name} stands for one non-empty segment; a final slash is free. */
  static boolean matches(String template, String path) {
    if (template.endsWith("*")) {
      return path.startsWith(template.substring(0, template.length() - 1));
    }
    String[] want = trimSlash(template).split("/", -1);
    String[] got = trimSlash(path).split("/", -1);
    if (want.length != got.length) {
      return false;
    }
    for (int i = 0; i < want.length; i++) {
      boolean param = want[i].startsWith(":") && !got[i].isEmpty();
      if (!param && !want[i].equals(got[i])) {
        return false;
      }
    }
    return true;
  }

  private static String trimSlash(String path) {
    return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }
}
