package newsfeed.edge;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A service that takes the connection and then never answers (a hung JVM, a full accept queue, a network that
 * drops the replies) must not hang edge: the request answers 503 in GraphQL's errors shape within
 * DOWNSTREAM_TIMEOUT_MS, also when the service sends an answer a byte at a time (the client's idle timeout
 * alone would never fire) and when calls queue for the service's only connection.
 */
@ExtendWith(VertxExtension.class)
class EdgeSilentServiceTest {
  private static final int TIMEOUT_MS = 600;
  /** Room for scheduling on a busy 2-core machine: the answer must still come long before a hang would. */
  private static final int SLACK_MS = 1_500;
  private static SilentServer silent;
  private static SilentServer trickling;
  private static Vertx vertx;

  @BeforeAll
  static void start(Vertx v) throws IOException {
    vertx = v;
    silent = new SilentServer(false);
    trickling = new SilentServer(true);
  }

  @AfterAll
  static void stop() {
    if (silent != null) {
      silent.close();
    }
    if (trickling != null) {
      trickling.close();
    }
  }

  private static RunningEdge edge(String socialGraphUrl, int connections) throws Exception {
    return new RunningEdge(vertx, Map.of("SOCIAL_GRAPH_URL", socialGraphUrl, "OUTBOUND_URL", silent.url(),
        "INBOUND_URL", silent.url(), "SEARCH_URL", silent.url(), "DOWNSTREAM_TIMEOUT_MS", Integer.toString(TIMEOUT_MS),
        "DOWNSTREAM_CONNECTIONS", Integer.toString(connections)));
  }

  /** The answer is a 503 in GraphQL's shape naming the service and the timeout, with nothing resolved. */
  private static void assertTimedOut(HttpResponse<Buffer> resp, String service, String query) {
    assertEquals(503, resp.statusCode(), query + ": " + resp.bodyAsString());
    assertTrue(resp.getHeader("Content-Type").startsWith("application/json"), resp.getHeader("Content-Type"));
    JsonObject body = resp.bodyAsJsonObject();
    JsonObject error = body.getJsonArray("errors").getJsonObject(0);
    assertEquals("service_unavailable", error.getJsonObject("extensions").getString("code"), query);
    assertEquals(503, error.getJsonObject("extensions").getInteger("status"), query);
    assertTrue(error.getString("message").contains(service) && error.getString("message").contains(TIMEOUT_MS + " ms"),
        query + ": " + error.getString("message"));
    assertTrue(body.getJsonObject("data").stream().allMatch(e -> e.getValue() == null), query + ": " + body);
  }

  private static void assertWithinTimeout(long elapsedMs, String query) {
    assertTrue(elapsedMs >= TIMEOUT_MS - 50, query + ": answered after " + elapsedMs + " ms, before the timeout");
    assertTrue(elapsedMs < TIMEOUT_MS + SLACK_MS, query + ": answered after " + elapsedMs + " ms");
  }

  @Test
  void aServiceThatNeverAnswersIs503WithinTheTimeout() throws Exception {
    String[] queries = {
        "query { participant(id: 1) { name } }",
        "query { participant(id: 1) { id } }",
        "query { participant(id: 1) { inbound { subject } } }",
        "query { posters(keywords: \"x\") { id } }",
        "mutation { createOutbound(input: {from_id: \"1\", subject: \"s\", story: \"s\"}) { from { id } } }"};
    String[] services = {"social-graph", "social-graph", "inbound", "search", "outbound"};
    try (RunningEdge edge = edge(silent.url(), 32)) {
      for (int i = 0; i < queries.length; i++) {
        long start = System.nanoTime();
        HttpResponse<Buffer> resp = edge.query("/graphql", queries[i]);
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        assertTimedOut(resp, services[i], queries[i]);
        assertWithinTimeout(elapsed, queries[i]);
      }
    }
    assertTrue(silent.accepted() >= queries.length, "the server took the connections: " + silent.accepted());
  }

  @Test
  void aServiceThatAnswersAByteAtATimeIs503WithinTheTimeout() throws Exception {
    String q = "query { participant(id: 1) { name } }";
    try (RunningEdge edge = edge(trickling.url(), 32)) {
      long start = System.nanoTime();
      HttpResponse<Buffer> resp = edge.query("/", q);
      assertTimedOut(resp, "social-graph", q);
      assertWithinTimeout((System.nanoTime() - start) / 1_000_000, q);
    }
  }

  @Test
  void callsQueuedForABusyConnectionAre503WithinTheTimeout() throws Exception {
    String q = "query { participant(id: 1) { name } }";
    try (RunningEdge edge = edge(silent.url(), 1)) {
      List<Future<Long>> answered = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        long start = System.nanoTime();
        answered.add(edge.queryAsync("/", q).map(resp -> {
          assertEquals(503, resp.statusCode(), resp.bodyAsString());
          return (System.nanoTime() - start) / 1_000_000;
        }));
      }
      for (Future<Long> a : answered) {
        long elapsed = a.await();
        assertTrue(elapsed < TIMEOUT_MS + SLACK_MS, "answered after " + elapsed + " ms");
      }
    }
  }

  @Test
  void beyondHttpMaxInFlightEdgeRefusesAtOnceInGraphQlsShape() throws Exception {
    String q = "query { participant(id: 1) { name } }";
    Map<String, String> env = new java.util.HashMap<>(Map.of("SOCIAL_GRAPH_URL", silent.url(), "OUTBOUND_URL",
        silent.url(), "INBOUND_URL", silent.url(), "SEARCH_URL", silent.url(), "DOWNSTREAM_TIMEOUT_MS", "5000"));
    env.put("HTTP_MAX_IN_FLIGHT", "1");
    try (RunningEdge edge = new RunningEdge(vertx, env)) {
      int before = silent.accepted();
      Future<HttpResponse<Buffer>> waiting = edge.queryAsync("/", q);
      long deadline = System.currentTimeMillis() + 5_000;
      while (silent.accepted() == before && System.currentTimeMillis() < deadline) {
        Thread.sleep(10);   // until the first query's call reached the silent service
      }
      long start = System.nanoTime();
      HttpResponse<Buffer> refused = edge.query("/", q);
      long elapsed = (System.nanoTime() - start) / 1_000_000;
      assertEquals(503, refused.statusCode(), refused.bodyAsString());
      assertEquals("1", refused.getHeader("Retry-After"));
      JsonObject error = refused.bodyAsJsonObject().getJsonArray("errors").getJsonObject(0);
      assertEquals("overloaded", error.getJsonObject("extensions").getString("code"), refused.bodyAsString());
      assertEquals(503, error.getJsonObject("extensions").getInteger("status"));
      assertTrue(elapsed < SLACK_MS, "refused at once, not after the first query's timeout: " + elapsed + " ms");
      assertEquals(200, edge.get("/health/live").statusCode());
      assertEquals(503, waiting.await().statusCode(), "the first query still ends with its own timeout");
    }
  }

  /**
   * A TCP server that accepts every connection and never answers; or, trickling, answers a 200's head once the
   * request's head arrived and then one byte of a chunked body every 100 ms, forever.
   */
  private static final class SilentServer implements AutoCloseable {
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final boolean trickle;

    SilentServer(boolean trickle) throws IOException {
      this.trickle = trickle;
      Thread acceptor = new Thread(this::acceptLoop, "silent-server");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getLocalPort();
    }

    int accepted() {
      return sockets.size();
    }

    private void acceptLoop() {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          sockets.add(s);
          if (trickle) {
            Thread t = new Thread(() -> trickle(s), "trickling-answer");
            t.setDaemon(true);
            t.start();
          }
        } catch (IOException e) {
          return;   // closed
        }
      }
    }

    private static void trickle(Socket s) {
      try {
        InputStream in = s.getInputStream();
        int matched = 0;
        byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        while (matched < end.length) {
          int b = in.read();
          if (b < 0) {
            return;
          }
          matched = b == end[matched] ? matched + 1 : (b == end[0] ? 1 : 0);
        }
        OutputStream out = s.getOutputStream();
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        while (!s.isClosed()) {
          out.write("1\r\n \r\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();
          Thread.sleep(100);
        }
      } catch (IOException | InterruptedException e) {
        // edge closed the connection, or the test ended
      }
    }

    @Override
    public void close() {
      try {
        server.close();
        for (Socket s : sockets) {
          s.close();
        }
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }
}
