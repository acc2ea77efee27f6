package newsfeed.common.config;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Typed reads of a service's environment variables (its only configuration, docs/contracts.md) with defaults.
 * A malformed value stops the start with the variable's name instead of surfacing later as a strange failure.
 */
public final class Env {
  private final Map<String, String> env;

  public Env(Map<String, String> env) {
    this.env = env;
  }

  public String string(String name, String def) {
    String v = env.get(name);
    return v == null || v.isBlank() ? def : v.trim();
  }

  /** A value without default, e.g. a password: null when unset. */
  public String optional(String name) {
    String v = env.get(name);
    return v == null || v.isEmpty() ? null : v;
  }

  public int integer(String name, int def, int min, int max) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return def;
    }
    try {
      int i = Integer.parseInt(v.trim());
      if (i >= min && i <= max) {
        return i;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new IllegalArgumentException(name + " must be an integer from " + min + " to " + max + ", got '" + v + "'");
  }

  public boolean bool(String name, boolean def) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return def;
    }
    return switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(name + " must be true or false, got '" + v + "'");
    };
  }

  /** A comma-separated list of host:port, e.g. CASSANDRA_CONTACT_POINTS. */
  public List<InetSocketAddress> hostPorts(String name, String def) {
    return parseHostPorts(name, string(name, def));
  }

  /** Parses "host:port,host:port"; the name is only for the error message. */
  public static List<InetSocketAddress> parseHostPorts(String name, String value) {
    List<InetSocketAddress> points = new ArrayList<>();
    for (String hostPort : value.split(",")) {
      String hp = hostPort.trim();
      int colon = hp.lastIndexOf(':');
      if (colon <= 0 || colon == hp.length() - 1) {
        throw new IllegalArgumentException(name + ": expected host:port, got '" + hp + "'");
      }
      int port;
      try {
        port = Integer.parseInt(hp.substring(colon + 1));
      } catch (NumberFormatException ex) {
        throw new IllegalArgumentException(name + ": bad port in '" + hp + "'");
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException(name + ": bad port in '" + hp + "'");
      }
      points.add(InetSocketAddress.createUnresolved(hp.substring(0, colon), port));
    }
    return List.copyOf(points);
  }
}
